import type { AnySchemaObject, ErrorObject } from "ajv";
import { formatPath, pointerToSegments, type PathSegment } from "./format-path.js";
import { didYouMean } from "./suggest-key.js";

/** One problem found in a document, in the words an error message needs. */
export interface SchemaIssue {
  /** Full path from the root of the file (prefix included). */
  segments: PathSegment[];
  path: string;
  /** What is wrong: `unknown key "max_tokens"`, `wrong type`, `missing required key "module"`. */
  message: string;
  expected: string;
  given: unknown;
  hint?: string;
}

/**
 * Turn ajv errors (compiled with `verbose: true`) into issues. `prefix` places a module's config
 * inside the file (`session.context.config`), so every path points at the line to edit.
 *
 * The branch errors under an `anyOf`/`oneOf` and the `if` marker duplicate what the combinator's
 * own error says, so they are dropped; everything else is reported, all of it, in ajv's order.
 */
export function schemaIssues(errors: readonly ErrorObject[], document: unknown, prefix: readonly PathSegment[] = []): SchemaIssue[] {
  const combinators = errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf");
  const issues: SchemaIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (error.keyword === "if") continue;
    if (combinators.some((c) => c !== error && error.schemaPath.startsWith(`${c.schemaPath}/`))) continue;
    const issue = toIssue(error, document, prefix);
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  // Never report "0 problems" for a failed validation: if filtering left nothing, keep everything.
  if (issues.length === 0 && errors.length > 0) return errors.map((error) => toIssue(error, document, prefix));
  return issues;
}

function toIssue(error: ErrorObject, document: unknown, prefix: readonly PathSegment[]): SchemaIssue {
  const at = [...prefix, ...pointerToSegments(error.instancePath, document)];
  const params = error.params as Record<string, unknown>;
  const parent = (error.parentSchema ?? {}) as AnySchemaObject;
  const make = (segments: PathSegment[], message: string, expected: string, given: unknown, hint?: string): SchemaIssue => ({
    segments,
    path: formatPath(segments),
    message,
    expected,
    given,
    ...(hint === undefined ? {} : { hint }),
  });

  switch (error.keyword) {
    case "additionalProperties": {
      const key = String(params.additionalProperty);
      const known = Object.keys((parent.properties ?? {}) as Record<string, unknown>);
      const expected = known.length > 0 ? `one of the keys ${known.map((k) => `"${k}"`).join(", ")}` : "no keys";
      return make([...at, key], `unknown key "${key}"`, expected, key, didYouMean(key, known));
    }
    case "required": {
      const key = String(params.missingProperty);
      return make([...at, key], `missing required key "${key}"`, `key "${key}" to be present`, undefined);
    }
    case "type":
      return make(at, "wrong type", describeTypes(String(params.type)), error.data);
    case "enum": {
      const allowed = (params.allowedValues ?? []) as unknown[];
      const strings = allowed.filter((v): v is string => typeof v === "string");
      const hint = typeof error.data === "string" ? didYouMean(error.data, strings) : undefined;
      return make(at, "not an allowed value", `one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}`, error.data, hint);
    }
    case "const":
      return make(at, "not the required value", JSON.stringify(params.allowedValue), error.data);
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return make(at, "out of range", `a number ${String(params.comparison)} ${String(params.limit)}`, error.data);
    case "multipleOf":
      return make(at, "not a multiple", `a multiple of ${String(params.multipleOf)}`, error.data);
    case "minLength":
      return make(at, "too short", `a string of at least ${String(params.limit)} character(s)`, error.data);
    case "maxLength":
      return make(at, "too long", `a string of at most ${String(params.limit)} character(s)`, error.data);
    case "minItems":
      return make(at, "too few items", `an array of at least ${String(params.limit)} item(s)`, error.data);
    case "maxItems":
      return make(at, "too many items", `an array of at most ${String(params.limit)} item(s)`, error.data);
    case "pattern":
      return make(at, "does not match the pattern", `a string matching /${String(params.pattern)}/`, error.data);
    case "format":
      return make(at, "wrong format", `a string in format "${String(params.format)}"`, error.data);
    case "anyOf":
    case "oneOf": {
      const branches = (parent[error.keyword] ?? []) as AnySchemaObject[];
      const words = branches.map(describeSchema);
      const expected = words.every((w) => w !== undefined) ? words.join(" or ") : `${error.keyword} of ${branches.length} alternative schemas`;
      const message = error.keyword === "oneOf" && params.passingSchemas != null ? "matches more than one alternative" : "matches none of the alternatives";
      return make(at, message, expected, error.data);
    }
    default:
      return make(at, error.message ?? `fails "${error.keyword}"`, `to satisfy "${error.keyword}" ${JSON.stringify(error.schema)}`, error.data);
  }
}

const TYPE_WORDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
  object: "an object",
  array: "an array",
  null: "null",
};

function describeTypes(types: string): string {
  return types
    .split(",")
    .map((t) => TYPE_WORDS[t] ?? t)
    .join(" or ");
}

function describeSchema(schema: AnySchemaObject): string | undefined {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (typeof schema.type === "string") return describeTypes(schema.type);
  if (Array.isArray(schema.type)) return describeTypes(schema.type.join(","));
  return undefined;
}
