import type { ZodType } from "zod";
import { createError, type ErrorCode, type ErrorDetails } from "../errors.js";
import { formatIssues } from "./format-issues.js";

/**
 * `value` if `schema` accepts it, else AmplifierError `code`. The details carry the first
 * problem's `path`, `expected`, `given` (and `hint`), plus `issues` listing every problem when
 * there are several, so one round trip fixes a document.
 *
 * Returns the very value given: the contract schemas neither default nor transform, so zod's
 * parsed copy would only cost an allocation per call.
 */
export function assertValid(schema: ZodType, value: unknown, code: ErrorCode, path: string, extra: ErrorDetails = {}): unknown {
  const result = schema.safeParse(value);
  if (result.success) return value;
  const issues = formatIssues(result.error.issues, value, path, schema);
  const [first] = issues;
  const details: ErrorDetails = { ...extra, path: first?.path ?? path, expected: first?.expected ?? "a valid value", given: first?.given };
  if (first?.hint !== undefined) details.hint = first.hint;
  if (issues.length > 1) details.issues = issues;
  throw createError(code, undefined, details);
}
