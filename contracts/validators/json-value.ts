import type { ValidationIssue } from "./format-issues.js";

/**
 * What a stored value may hold: exactly what JSON holds, so a message reads the same live and
 * after a resume (the stores keep one JSON text per message). The rules, per value:
 *
 * | value                                            | verdict                                              |
 * |--------------------------------------------------|------------------------------------------------------|
 * | string, boolean, null, finite number             | kept (`-0` is stored as `0`, as JSON writes it)      |
 * | plain object (prototype Object or null), array   | walked                                               |
 * | `undefined` as an object's property              | the property is absent (JSON omits it)               |
 * | `undefined` in an array                          | refused: JSON would turn it into null                |
 * | NaN, Infinity, -Infinity                          | refused: JSON would turn it into null                |
 * | BigInt, function, symbol                         | refused: JSON cannot hold it (stringify throws or drops it) |
 * | Date, Map, Set, RegExp, class instances, buffers | refused: JSON would turn it into a string or {}       |
 * | an object inside itself (a cycle)                | refused                                              |
 * | nesting deeper than MAX_JSON_DEPTH               | refused: deeper values overflow the stack of JSON.stringify and of the token counter |
 *
 * The walk is iterative, so hostile nesting costs a refusal, never a RangeError.
 */
export const MAX_JSON_DEPTH = 256;

/** The first value under `value` that JSON cannot hold, as a validation issue (path from `path`), or undefined. */
export function findNonJsonValue(value: unknown, path: string): ValidationIssue | undefined {
  // Depth-first; `ancestors` holds the objects on the current branch, for cycle detection.
  const stack: Array<{ value: unknown; path: string; depth: number; inArray: boolean } | { leave: object }> = [{ value, path, depth: 0, inArray: false }];
  const ancestors = new Set<object>();
  while (stack.length > 0) {
    const next = stack.pop()!;
    if ("leave" in next) {
      ancestors.delete(next.leave);
      continue;
    }
    const problem = problemOf(next.value, next.inArray);
    if (problem !== undefined) return { path: next.path, expected: problem, given: next.value };
    const current = next.value;
    if (typeof current !== "object" || current === null) continue;
    if (ancestors.has(current)) return { path: next.path, expected: "a tree of JSON values (this object contains itself: JSON cannot hold a cycle)", given: "[circular]" };
    if (next.depth >= MAX_JSON_DEPTH) return { path: next.path, expected: `JSON nested at most ${MAX_JSON_DEPTH} levels deep`, given: "[nested deeper]" };
    ancestors.add(current);
    stack.push({ leave: current });
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: `${next.path}[${i}]`, depth: next.depth + 1, inArray: true });
    } else {
      const keys = Object.keys(current);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        stack.push({ value: (current as Record<string, unknown>)[key], path: `${next.path}${propertyPath(key)}`, depth: next.depth + 1, inArray: false });
      }
    }
  }
  return undefined;
}

/** What JSON expected instead of `value`, or undefined when JSON holds it as it is (objects: their shell). */
function problemOf(value: unknown, inArray: boolean): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : "a finite number (JSON has no NaN or Infinity: they would come back as null)";
    case "undefined":
      return inArray ? "a JSON value (undefined in an array would come back as null)" : undefined;
    case "bigint":
      return "a JSON number or string (JSON cannot hold a BigInt: convert it, e.g. String(n))";
    case "function":
    case "symbol":
      return `a JSON value (JSON cannot hold a ${typeof value})`;
    case "object": {
      if (value === null || Array.isArray(value)) return undefined;
      const prototype = Object.getPrototypeOf(value);
      if (prototype === Object.prototype || prototype === null) return undefined;
      const kind = (value as object).constructor?.name ?? "object";
      return `a plain object, array or primitive (a ${kind} would not come back as itself: convert it, e.g. date.toISOString(), Object.fromEntries(map))`;
    }
  }
}

function propertyPath(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
