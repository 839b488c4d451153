import { createError, describeValue, type AmplifierError, type ErrorCode } from "@amplifier-ts/contracts";
import type { SchemaIssue } from "./schema-issues.js";

/**
 * One error for every issue of a document, so a user fixes a file in one pass. The error's
 * `details.errors` holds one AmplifierError per issue (same code, with path / expected / given /
 * hint); when there is a single issue, those details sit on the top-level error as well.
 */
export function issuesError(code: ErrorCode, issues: readonly SchemaIssue[], where: { file?: string; module?: string }): AmplifierError {
  const scope = {
    ...(where.file === undefined ? {} : { file: where.file }),
    ...(where.module === undefined ? {} : { module: where.module }),
  };
  const errors = issues.map((issue) =>
    createError(code, issue.message, {
      ...scope,
      path: issue.path,
      expected: issue.expected,
      given: issue.given,
      ...(issue.hint === undefined ? {} : { hint: issue.hint }),
    }),
  );
  const [only] = issues;
  if (issues.length === 1 && only !== undefined) {
    return createError(code, only.message, { ...(errors[0]?.details ?? {}), errors });
  }
  const lines = issues.map((issue) => `  - ${formatIssue(issue)}`);
  return createError(code, `${issues.length} problems:\n${lines.join("\n")}\n`, { ...scope, errors });
}

/** `session.context.config.max_tokens: unknown key "max_tokens"; expected …; given …; did you mean …` */
export function formatIssue(issue: SchemaIssue): string {
  const parts = [`${issue.path || "(root)"}: ${issue.message}`, `expected ${issue.expected}`, `given ${describeValue(issue.given)}`];
  if (issue.hint !== undefined) parts.push(issue.hint);
  return parts.join("; ");
}
