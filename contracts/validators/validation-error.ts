import type { ZodType } from "zod";
import { createError, describeValue, type AmplifierError, type ErrorCode, type ErrorDetails } from "../errors.js";
import { formatIssues, type DocumentIssue, type ValidationIssue, type Wording } from "./format-issues.js";

/** How a failed validation becomes an error: the code, where the value sits, who reads it. */
export interface ValidationErrorOptions {
  code: ErrorCode;
  /** JSON path of the validated value: `message`, `strategies[2]`, `session.context.config` ("" for a document's root). */
  path: string;
  /** "value" (default) for values a program passes, "document" for files a user edits (see format-issues.ts). */
  wording?: Wording;
  /** Carried on the error (and, for a document, on each problem's error): module, file, hook, event, index … */
  details?: ErrorDetails;
}

/**
 * `value` if `schema` accepts it, else the AmplifierError of `options` (see issuesError). Returns
 * the very value given: the contract schemas neither default nor transform, so zod's parsed copy
 * would only cost an allocation per call.
 */
export function assertValid(schema: ZodType, value: unknown, code: ErrorCode, path: string, extra: ErrorDetails = {}): unknown {
  const result = schema.safeParse(value);
  if (result.success) return value;
  throw issuesError(code, formatIssues(result.error.issues, value, path, schema), { details: extra });
}

/** zod's parsed output (defaults applied) if `schema` accepts `value`, else the AmplifierError of `options`. */
export function parseValid<T>(schema: ZodType<T>, value: unknown, options: ValidationErrorOptions): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const wording = options.wording ?? "value";
  throw issuesError(options.code, formatIssues(result.error.issues, value, options.path, schema, wording), { wording, details: options.details ?? {} });
}

/**
 * The one place validation problems become an AmplifierError; two layouts, as the wording:
 *
 * | wording    | details                                                                  | message                                   |
 * |------------|--------------------------------------------------------------------------|-------------------------------------------|
 * | "value"    | the first problem's `path`, `expected`, `given`, `hint`; `issues` lists all when there are several | the code's template                        |
 * | "document" | `errors`: one AmplifierError per problem (same code and details); a single problem's details also on top | the problem's message, or "N problems:" and one line each |
 *
 * Either way a user fixes every problem in one pass.
 */
export function issuesError(code: ErrorCode, issues: readonly ValidationIssue[], options: { wording?: Wording; details?: ErrorDetails } = {}): AmplifierError {
  const extra = options.details ?? {};
  if ((options.wording ?? "value") === "value") {
    const [first] = issues;
    const details: ErrorDetails = { ...extra, path: first?.path ?? "", expected: first?.expected ?? "a valid value", given: first?.given };
    if (first?.hint !== undefined) details.hint = first.hint;
    if (issues.length > 1) details.issues = issues;
    return createError(code, undefined, details);
  }
  const problems = issues as readonly DocumentIssue[];
  const errors = problems.map((issue) => createError(code, issue.message, { ...extra, path: issue.path, expected: issue.expected, given: issue.given, ...(issue.hint === undefined ? {} : { hint: issue.hint }) }));
  const [only] = problems;
  if (problems.length === 1 && only !== undefined) return createError(code, only.message, { ...(errors[0]?.details ?? {}), errors });
  const lines = problems.map((issue) => `  - ${formatIssue(issue)}`);
  return createError(code, `${problems.length} problems:\n${lines.join("\n")}\n`, { ...extra, errors });
}

/** `session.context.config.max_tokens: unknown key "max_tokens"; expected …; given …; did you mean …` */
export function formatIssue(issue: DocumentIssue): string {
  const parts = [`${issue.path || "(root)"}: ${issue.message}`, `expected ${issue.expected}`, `given ${describeValue(issue.given)}`];
  if (issue.hint !== undefined) parts.push(issue.hint);
  return parts.join("; ");
}
