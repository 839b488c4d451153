import fc from "fast-check";

/**
 * Random single edits of a JSON document, for checking that two validators give the same
 * verdict on near-misses: replace any node with another JSON value, delete any key or element,
 * or add a key to any object. Edits are applied to a copy.
 */
export type Segment = string | number;

/** The path to every node of `value`, the root included. */
export function nodePaths(value: unknown, at: Segment[] = []): Segment[][] {
  const paths: Segment[][] = [at];
  if (Array.isArray(value)) value.forEach((item, i) => paths.push(...nodePaths(item, [...at, i])));
  else if (isObject(value)) for (const [key, item] of Object.entries(value)) paths.push(...nodePaths(item, [...at, key]));
  return paths;
}

/** Values that sit on the edges of the contracts' rules, mixed with arbitrary JSON. */
export const edgyJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(null, "", 0, -1, 1, 1.5, 1e20, true, [], {}, "tool", "assistant", "user", "function", "text", "image", "2024-02-30T00:00:00Z", "2024-05-01T12:00:00"),
);

export function mutationOf(document: unknown, replacement: fc.Arbitrary<unknown> = edgyJsonValue): fc.Arbitrary<unknown> {
  const paths = nodePaths(document);
  const path = fc.constantFrom(...paths);
  return fc.oneof(
    fc.tuple(path, replacement).map(([at, value]) => edit(document, at, (parent, key) => set(parent, key, value), value)),
    fc.constantFrom(...paths.filter((p) => p.length > 0)).map((at) => edit(document, at, (parent, key) => remove(parent, key))),
    fc
      .tuple(fc.constantFrom(...paths.filter((p) => isObject(valueAt(document, p)))), fc.string({ maxLength: 10 }), replacement)
      .map(([at, key, value]) => edit(document, [...at, key], (parent, k) => set(parent, k, value), value)),
  );
}

function edit(document: unknown, at: Segment[], change: (parent: unknown, key: Segment) => void, rootValue?: unknown): unknown {
  if (at.length === 0) return structuredClone(rootValue);
  const copy = structuredClone(document);
  change(valueAt(copy, at.slice(0, -1)), at.at(-1)!);
  return copy;
}

function set(parent: unknown, key: Segment, value: unknown): void {
  // defineProperty, so a "__proto__" key becomes an own key as JSON.parse would make it.
  if (Array.isArray(parent) && typeof key === "number") parent[key] = structuredClone(value);
  else if (isObject(parent)) Object.defineProperty(parent, key, { value: structuredClone(value), enumerable: true, writable: true, configurable: true });
}

function remove(parent: unknown, key: Segment): void {
  if (Array.isArray(parent) && typeof key === "number") parent.splice(key, 1);
  else if (isObject(parent)) delete parent[key];
}

function valueAt(root: unknown, at: Segment[]): unknown {
  let node = root;
  for (const key of at) node = (node as Record<Segment, unknown>)[key];
  return node;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
