import type { core, ZodType } from "zod";

/** One problem in a validated value, in the words an AmplifierError's details use. */
export interface ValidationIssue {
  /** JSON path from the caller's root name: `message.tool_calls[0].function.name`. */
  path: string;
  /** What was expected there, in words. */
  expected: string;
  /** The value found there (`undefined` when the field is missing). */
  given: unknown;
  /** A suggestion, e.g. `did you mean "tool_calls"?` for an unknown `toolCalls` key. */
  hint?: string;
}

/**
 * zod issues → ValidationIssues. zod's own messages name types ("expected string, received
 * number"); ours name the field, what belongs there and what was there, and unwrap unions down to
 * the branch the value was evidently meant for, so `content: [{ type: "text", text: 1 }]` reports
 * `message.content[0].text`, not "content matches none of string | array | null".
 *
 * `schema` is only read to list the keys an object allows when it has an unknown one.
 */
export function formatIssues(issues: readonly core.$ZodIssue[], root: unknown, rootPath: string, schema: ZodType): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of issues) collect(issue, [], out, { root, rootPath, schema });
  return out;
}

/** `message` + `["tool_calls", 0, "function"]` → `message.tool_calls[0].function`. */
export function formatPath(rootPath: string, segments: readonly PropertyKey[]): string {
  let path = rootPath;
  for (const segment of segments) {
    if (typeof segment === "number") path += `[${segment}]`;
    else if (typeof segment === "string" && IDENTIFIER.test(segment)) path += path === "" ? segment : `.${segment}`;
    else path += `[${JSON.stringify(String(segment))}]`;
  }
  return path;
}

interface Context {
  root: unknown;
  rootPath: string;
  schema: ZodType;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function collect(issue: core.$ZodIssue, prefix: readonly PropertyKey[], out: ValidationIssue[], ctx: Context): void {
  const segments = [...prefix, ...issue.path];
  switch (issue.code) {
    case "unrecognized_keys": {
      const allowed = allowedKeys(ctx, segments);
      for (const key of issue.keys) {
        const at = [...segments, key];
        const expected = allowed ? `no key "${key}" here (allowed: ${allowed.join(", ")})` : `no key "${key}" here`;
        const suggestion = allowed && suggestKey(key, allowed);
        out.push(withHint({ path: formatPath(ctx.rootPath, at), expected, given: valueAt(ctx.root, at) }, suggestion));
      }
      return;
    }
    case "invalid_union": {
      // A discriminated union whose discriminator matched no option.
      if (issue.errors.length === 0) {
        const at = issue.discriminator !== undefined && segments.at(-1) !== issue.discriminator ? [...segments, issue.discriminator] : segments;
        const options = "options" in issue && issue.options ? issue.options : [];
        const given = valueAt(ctx.root, at);
        out.push({ path: formatPath(ctx.rootPath, at), expected: required(oneOf(options), given), given });
        return;
      }
      // The value was meant for the one branch that got past the type check: report its problems.
      const deeper = issue.errors.filter((branch) => !branch.every((i) => i.code === "invalid_type" && i.path.length === 0));
      if (deeper.length === 1) {
        for (const inner of deeper[0]!) collect(inner, segments, out, ctx);
        return;
      }
      const types = issue.errors.flatMap((branch) => branch.filter((i) => i.code === "invalid_type" && i.path.length === 0)).map((i) => typeName((i as core.$ZodIssueInvalidType).expected));
      const given = valueAt(ctx.root, segments);
      const expected = types.length > 0 ? required(alternatives([...new Set(types)]), given) : issue.message;
      out.push({ path: formatPath(ctx.rootPath, segments), expected, given });
      return;
    }
    default:
      out.push({ path: formatPath(ctx.rootPath, segments), expected: expectedOf(issue, valueAt(ctx.root, segments)), given: valueAt(ctx.root, segments) });
  }
}

function expectedOf(issue: core.$ZodIssue, given: unknown): string {
  switch (issue.code) {
    case "invalid_type":
      return required(typeName(issue.expected), given);
    case "invalid_value":
      return required(oneOf(issue.values), given);
    case "too_small":
      return bound(issue.origin, ">", Number(issue.minimum), issue.inclusive ?? true);
    case "too_big":
      return bound(issue.origin, "<", Number(issue.maximum), issue.inclusive ?? true);
    default:
      // Custom issues (role rules, integer, date-time) carry the expected text as their message.
      return issue.message;
  }
}

/** A type mismatch on `undefined` means the field is missing. */
function required(expected: string, given: unknown): string {
  return given === undefined ? `${expected} (required)` : expected;
}

function bound(origin: string, direction: ">" | "<", limit: number, inclusive: boolean): string {
  if (origin === "string") {
    if (direction === ">" && limit === 1) return "a non-empty string";
    return `a string of ${direction === ">" ? "at least" : "at most"} ${limit} characters`;
  }
  if (origin === "array") {
    return `${direction === ">" ? "at least" : "at most"} ${limit} item${limit === 1 ? "" : "s"}`;
  }
  const symbol = direction === ">" ? (inclusive ? "≥" : ">") : inclusive ? "≤" : "<";
  return `a number ${symbol} ${limit}`;
}

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "a boolean",
  array: "an array",
  object: "an object",
  record: "an object",
  null: "null",
};

function typeName(expected: string): string {
  return TYPE_NAMES[expected] ?? expected;
}

function oneOf(values: readonly unknown[]): string {
  const shown = values.map((v) => JSON.stringify(v));
  return shown.length === 1 ? shown[0]! : `one of ${shown.join(", ")}`;
}

function alternatives(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}

function withHint(issue: ValidationIssue, suggestion: string | false | undefined): ValidationIssue {
  return suggestion ? { ...issue, hint: `did you mean "${suggestion}"?` } : issue;
}

/** `toolCalls` → `tool_calls`, `run_id` → `runId`, `Role` → `role`. */
function suggestKey(key: string, allowed: readonly string[]): string | undefined {
  const snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const camel = key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  const lower = key.toLowerCase();
  return allowed.find((k) => k === snake || k === camel) ?? allowed.find((k) => k.toLowerCase() === lower);
}

function valueAt(root: unknown, segments: readonly PropertyKey[]): unknown {
  let node = root;
  for (const segment of segments) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[segment];
  }
  return node;
}

// --- the keys an object schema allows, found by walking the schema along the value -----------

type Def = { type: string; shape?: Record<string, ZodType>; innerType?: ZodType; element?: ZodType; options?: ZodType[]; valueType?: ZodType; values?: unknown[] };

function defOf(schema: ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function allowedKeys(ctx: Context, segments: readonly PropertyKey[]): string[] | undefined {
  let schema: ZodType | undefined = ctx.schema;
  let value: unknown = ctx.root;
  for (const segment of segments) {
    schema = schema && childOf(schema, value, segment);
    value = typeof value === "object" && value !== null ? (value as Record<PropertyKey, unknown>)[segment] : undefined;
  }
  const object = schema && pickFor(schema, value);
  const shape = object && defOf(object).shape;
  return shape ? Object.keys(shape) : undefined;
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

function flatten(schema: ZodType): ZodType[] {
  const def = defOf(schema);
  if (def.innerType && (def.type === "optional" || def.type === "nullable" || def.type === "default")) return flatten(def.innerType);
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
