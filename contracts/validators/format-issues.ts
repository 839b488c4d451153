import { z, type core, type ZodType } from "zod";
import { allowedKeys, keyAliases } from "./allowed-keys.js";
import { inDocumentOrder } from "./document-order.js";
import { didYouMean } from "./suggest-key.js";

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

/** A problem in a document a user edits (a config file): also a short `message` per problem. */
export interface DocumentIssue extends ValidationIssue {
  /** `unknown key "max_tokens"`, `wrong type`, `missing required key "module"`. */
  message: string;
}

/**
 * Who reads the words. The structure (paths, which branch of a union, hints) is the same for
 * both; only the wording differs, and both are specified by tests:
 *
 * | problem          | "value" (a message, a HookResult, options)        | "document" (a config file, a module's config)          |
 * |------------------|---------------------------------------------------|--------------------------------------------------------|
 * | unknown key      | expected `no key "k" here (allowed: a, b)`, given its value | `unknown key "k"`, expected `one of the keys "a", "b"`, given the key |
 * | missing key      | expected `a string (required)`                    | `missing required key "k"`, expected `key "k" to be present` |
 * | string too short | `a non-empty string`, `a string of at least 3 characters` | `too short`, `a string of at least 1 character(s)` |
 * | number bound     | `a number ≥ 1`, `a number > 0`                    | `out of range`, `a number >= 1`, `a number > 0`        |
 * | problem order    | zod's                                             | as the keys appear in the document                     |
 */
export type Wording = "value" | "document";

/**
 * zod issues → ValidationIssues: the one translator of validation problems (the errors are built
 * from these by validation-error.ts). zod's own messages name types ("expected string, received
 * number"); ours name the field, what belongs there and what was there, and unwrap unions down to
 * the branch the value was evidently meant for, so `content: [{ type: "text", text: 1 }]` reports
 * `message.content[0].text`, not "content matches none of string | array | null".
 *
 * `schema` is only read to list the keys an object allows when it has an unknown one.
 */
export function formatIssues(issues: readonly core.$ZodIssue[], root: unknown, rootPath: string, schema: ZodType): ValidationIssue[];
export function formatIssues(issues: readonly core.$ZodIssue[], root: unknown, rootPath: string, schema: ZodType, wording: "document"): DocumentIssue[];
export function formatIssues(issues: readonly core.$ZodIssue[], root: unknown, rootPath: string, schema: ZodType, wording: Wording): ValidationIssue[];
export function formatIssues(issues: readonly core.$ZodIssue[], root: unknown, rootPath: string, schema: ZodType, wording: Wording = "value"): ValidationIssue[] {
  const problems: Problem[] = [];
  const ctx: Context = { root, rootPath, schema };
  for (const issue of issues) collect(issue, [], problems, ctx);
  if (wording === "value") return problems.map((problem) => inValueWords(problem, ctx));
  return inDocumentOrder(problems, (problem) => problem.at, root).map((problem) => inDocumentWords(problem, ctx));
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

/** What went wrong where, before it is put into words. */
type Problem =
  | { kind: "unknown-key"; at: PropertyKey[]; key: string; allowed: string[] | undefined; aliases: Map<string, string> }
  | { kind: "no-branch"; at: PropertyKey[]; options: readonly unknown[] }
  /** No branch of a union took the value; `types` are the branches' words (`an integer`, `"auto"`). */
  | { kind: "no-type"; at: PropertyKey[]; types: string[]; message: string }
  | { kind: "issue"; at: PropertyKey[]; issue: core.$ZodIssue };

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function collect(issue: core.$ZodIssue, prefix: readonly PropertyKey[], out: Problem[], ctx: Context): void {
  const segments = [...prefix, ...issue.path];
  switch (issue.code) {
    case "unrecognized_keys": {
      const allowed = allowedKeys(ctx.schema, ctx.root, segments);
      const aliases = keyAliases(ctx.schema, ctx.root, segments);
      for (const key of issue.keys) out.push({ kind: "unknown-key", at: [...segments, key], key, allowed, aliases });
      return;
    }
    case "invalid_union": {
      // A discriminated union whose discriminator matched no option.
      if (issue.errors.length === 0) {
        const at = issue.discriminator !== undefined && segments.at(-1) !== issue.discriminator ? [...segments, issue.discriminator] : segments;
        out.push({ kind: "no-branch", at, options: "options" in issue && issue.options ? issue.options : [] });
        return;
      }
      // The value was meant for the one branch that got past the type (or constant) check: report its problems.
      const deeper = issue.errors.filter((branch) => !branch.every(failsAtRoot));
      if (deeper.length === 1) {
        for (const inner of deeper[0]!) collect(inner, segments, out, ctx);
        return;
      }
      const kinds = issue.errors.flatMap((branch) => branch.filter(failsAtRoot)).map(rootWords);
      out.push({ kind: "no-type", at: segments, types: [...new Set(kinds)], message: issue.message });
      return;
    }
    default:
      out.push({ kind: "issue", at: segments, issue });
  }
}

/** A union branch refused the value as a whole: wrong type, or not its constant. */
function failsAtRoot(issue: core.$ZodIssue): boolean {
  return issue.path.length === 0 && (issue.code === "invalid_type" || issue.code === "invalid_value");
}

/** What such a branch wanted: `an integer`, `"auto"`. */
function rootWords(issue: core.$ZodIssue): string {
  return issue.code === "invalid_value" ? oneOf(issue.values) : typeName((issue as core.$ZodIssueInvalidType).expected as string);
}

// --- the words ---------------------------------------------------------------------------

function inValueWords(problem: Problem, ctx: Context): ValidationIssue {
  const path = formatPath(ctx.rootPath, problem.at);
  const given = valueAt(ctx.root, problem.at);
  switch (problem.kind) {
    case "unknown-key": {
      const expected = problem.allowed ? `no key "${problem.key}" here (allowed: ${problem.allowed.join(", ")})` : `no key "${problem.key}" here`;
      return withHint({ path, expected, given }, problem.allowed && didYouMean(problem.key, problem.allowed, problem.aliases));
    }
    case "no-branch":
      return { path, expected: required(oneOf(problem.options), given), given };
    case "no-type":
      return { path, expected: problem.types.length > 0 ? required(alternatives(problem.types), given) : problem.message, given };
    case "issue":
      return withHint({ path, expected: authoredMessage(problem.issue) ?? valueExpected(problem.issue, given), given }, enumHint(problem.issue, given));
  }
}

function inDocumentWords(problem: Problem, ctx: Context): DocumentIssue {
  const path = formatPath(ctx.rootPath, problem.at);
  const given = valueAt(ctx.root, problem.at);
  switch (problem.kind) {
    case "unknown-key": {
      const expected = problem.allowed?.length ? `one of the keys ${problem.allowed.map((k) => `"${k}"`).join(", ")}` : "no keys";
      return withHint({ path, message: `unknown key "${problem.key}"`, expected, given: problem.key }, problem.allowed && didYouMean(problem.key, problem.allowed, problem.aliases));
    }
    case "no-branch":
      return { path, message: "not an allowed value", expected: oneOf(problem.options), given };
    case "no-type":
      return { path, message: "matches none of the alternatives", expected: problem.types.length > 0 ? problem.types.join(" or ") : problem.message, given };
    case "issue": {
      const authored = authoredMessage(problem.issue);
      const words = authored === undefined ? documentWords(problem.issue, problem.at, given) : { message: authored, expected: authored };
      return withHint({ path, given, ...words }, enumHint(problem.issue, given));
    }
  }
}

function valueExpected(issue: core.$ZodIssue, given: unknown): string {
  switch (issue.code) {
    case "invalid_type":
      return required(typeName(issue.expected), given);
    case "invalid_value":
      return required(oneOf(issue.values), given);
    case "too_small":
      return valueBound(issue.origin, ">", Number(issue.minimum), issue.inclusive ?? true);
    case "too_big":
      return valueBound(issue.origin, "<", Number(issue.maximum), issue.inclusive ?? true);
    case "invalid_format":
      return formatExpected(issue);
    case "not_multiple_of":
      return `a multiple of ${String(issue.divisor)}`;
    default:
      // Custom issues (role rules, integer, date-time) carry the expected text as their message.
      return issue.message;
  }
}

function documentWords(issue: core.$ZodIssue, at: readonly PropertyKey[], given: unknown): { message: string; expected: string } {
  switch (issue.code) {
    case "invalid_type": {
      const key = at.at(-1);
      if (given === undefined && typeof key === "string") return { message: `missing required key "${key}"`, expected: `key "${key}" to be present` };
      return { message: "wrong type", expected: typeName(issue.expected) };
    }
    case "invalid_value":
      return issue.values.length === 1 ? { message: "not the required value", expected: JSON.stringify(issue.values[0]) } : { message: "not an allowed value", expected: oneOf(issue.values) };
    case "too_small":
    case "too_big":
      return documentBound(issue);
    case "invalid_format":
      return { message: issue.format === "regex" ? "does not match the pattern" : "wrong format", expected: formatExpected(issue) };
    case "not_multiple_of":
      return { message: "not a multiple", expected: `a multiple of ${String(issue.divisor)}` };
    default:
      return { message: issue.message, expected: issue.message };
  }
}

/**
 * The text a schema's author gave a check (`z.number().gt(0, "a timeout in ms greater than 0")`):
 * it says what belongs there better than generic words, so it is the `expected`. zod's own
 * messages (the configured locale's, computed again here) are not authored; custom issues carry
 * their text anyway (see valueExpected).
 */
function authoredMessage(issue: core.$ZodIssue): string | undefined {
  if (issue.code === "custom" || issue.code === "unrecognized_keys" || issue.code === "invalid_union") return undefined;
  if (issue.code === "invalid_type" && issue.message.startsWith("Invalid input")) return undefined;
  const localeError = z.config().localeError;
  const fallback = localeError?.(issue as unknown as Parameters<NonNullable<typeof localeError>>[0]);
  const standard = typeof fallback === "string" ? fallback : fallback?.message;
  return standard === undefined || issue.message === standard ? undefined : issue.message;
}

/** A type mismatch on `undefined` means the field is missing. */
function required(expected: string, given: unknown): string {
  return given === undefined ? `${expected} (required)` : expected;
}

function valueBound(origin: string, direction: ">" | "<", limit: number, inclusive: boolean): string {
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

function documentBound(issue: core.$ZodIssueTooSmall | core.$ZodIssueTooBig): { message: string; expected: string } {
  const small = issue.code === "too_small";
  const limit = String(small ? issue.minimum : issue.maximum);
  const least = small ? "at least" : "at most";
  if (issue.origin === "string") return { message: small ? "too short" : "too long", expected: `a string of ${least} ${limit} character(s)` };
  if (issue.origin === "array" || issue.origin === "set") return { message: small ? "too few items" : "too many items", expected: `an array of ${least} ${limit} item(s)` };
  const inclusive = issue.inclusive ?? true;
  const symbol = small ? (inclusive ? ">=" : ">") : inclusive ? "<=" : "<";
  return { message: "out of range", expected: `a number ${symbol} ${limit}` };
}

/** zod's format names → the JSON Schema `format` a user wrote (or reads in the schema). */
const FORMAT_NAMES: Record<string, string> = { url: "uri", datetime: "date-time", date: "date", time: "time", duration: "duration", email: "email", uuid: "uuid", ipv4: "ipv4", ipv6: "ipv6" };

function formatExpected(issue: core.$ZodIssueInvalidStringFormat): string {
  if (issue.format === "regex") {
    const pattern = String((issue as { pattern?: unknown }).pattern ?? "");
    return `a string matching ${pattern.startsWith("/") ? pattern : `/${pattern}/`}`;
  }
  return `a string in format "${FORMAT_NAMES[issue.format] ?? issue.format}"`;
}

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  integer: "an integer",
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

/** `"saf"` for one of "fast", "safe" → `did you mean "safe"?`. */
function enumHint(issue: core.$ZodIssue, given: unknown): string | undefined {
  if (issue.code !== "invalid_value" || typeof given !== "string" || issue.values.length < 2) return undefined;
  return didYouMean(given, issue.values.filter((v): v is string => typeof v === "string"));
}

function withHint<T extends ValidationIssue>(issue: T, hint: string | false | undefined): T {
  return hint ? { ...issue, hint } : issue;
}

function valueAt(root: unknown, segments: readonly PropertyKey[]): unknown {
  let node = root;
  for (const segment of segments) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[segment];
  }
  return node;
}
