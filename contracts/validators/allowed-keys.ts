import type { ZodType } from "zod";

/**
 * The keys an object schema allows at `segments` of `root`, found by walking the schema along the
 * value (through optional, default, pipes and unions, picking the branch the value was meant
 * for) — for "no key "x" here (allowed: …)" and its did-you-mean. undefined when no object
 * schema is found there.
 */
export function allowedKeys(root: ZodType, value: unknown, segments: readonly PropertyKey[]): string[] | undefined {
  const shape = shapeAt(root, value, segments);
  return shape ? Object.keys(shape) : undefined;
}

/**
 * The other names users write for the keys allowed there — a key's metadata `aliases`, e.g. the
 * API's own `max_tokens` for a provider's `maxOutputTokens` — as alias → key, for the did-you-mean.
 */
export function keyAliases(root: ZodType, value: unknown, segments: readonly PropertyKey[]): Map<string, string> {
  const aliases = new Map<string, string>();
  for (const [key, field] of Object.entries(shapeAt(root, value, segments) ?? {})) {
    const names = (field.meta() as { aliases?: unknown } | undefined)?.aliases;
    if (Array.isArray(names)) for (const name of names) if (typeof name === "string") aliases.set(name, key);
  }
  return aliases;
}

function shapeAt(root: ZodType, value: unknown, segments: readonly PropertyKey[]): Record<string, ZodType> | undefined {
  let schema: ZodType | undefined = root;
  let node: unknown = value;
  for (const segment of segments) {
    schema = schema && childOf(schema, node, segment);
    node = typeof node === "object" && node !== null ? (node as Record<PropertyKey, unknown>)[segment] : undefined;
  }
  const object = schema && pickFor(schema, node);
  return object && defOf(object).shape;
}

type Def = { type: string; shape?: Record<string, ZodType>; innerType?: ZodType; element?: ZodType; options?: ZodType[]; valueType?: ZodType; values?: unknown[]; in?: ZodType; left?: ZodType };

function defOf(schema: ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function childOf(schema: ZodType, value: unknown, segment: PropertyKey): ZodType | undefined {
  const picked = pickFor(schema, value);
  if (!picked) return undefined;
  const def = defOf(picked);
  if (def.type === "object") return def.shape?.[String(segment)];
  if (def.type === "array") return def.element;
  if (def.type === "record") return def.valueType;
  return undefined;
}

/** The branch of a (possibly optional, possibly union) schema that `value` was meant for. */
function pickFor(schema: ZodType, value: unknown): ZodType | undefined {
  const candidates = flatten(schema).filter((s) => {
    const type = defOf(s).type;
    return Array.isArray(value) ? type === "array" : typeof value === "object" && value !== null && (type === "object" || type === "record");
  });
  if (candidates.length <= 1) return candidates[0];
  return candidates.find((s) => literalsMatch(s, value)) ?? candidates[0];
}

/** Wrappers that keep the shape (optional, default, a refinement's pipe) are seen through. */
function flatten(schema: ZodType): ZodType[] {
  const def = defOf(schema);
  if (def.innerType && (def.type === "optional" || def.type === "nullable" || def.type === "default" || def.type === "prefault" || def.type === "catch" || def.type === "readonly")) return flatten(def.innerType);
  if (def.type === "pipe" && def.in) return flatten(def.in);
  if (def.type === "intersection" && def.left) return flatten(def.left);
  if (def.type === "union" && def.options) return def.options.flatMap(flatten);
  return [schema];
}

function literalsMatch(schema: ZodType, value: unknown): boolean {
  const shape = defOf(schema).shape ?? {};
  return Object.entries(shape).every(([key, field]) => {
    const def = defOf(field);
    return def.type !== "literal" || (def.values ?? []).includes((value as Record<string, unknown>)[key]);
  });
}
