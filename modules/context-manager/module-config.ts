/**
 * Parsing a context module's config with its zod mirror. Shared by every built-in context module
 * (context-simple through HistoryContextManager, context-persistent for its own options) so a bad
 * config is reported the same way everywhere: the FIRST issue becomes INVALID_MODULE_CONFIG with
 * the config path, what was expected and what was given — one error the user can act on, rather
 * than a list of consequences of the same mistake.
 */
import type { ZodType } from "zod";
import { createError } from "@amplifier-ts/contracts";
import { contextOptionsSchema, type ContextOptions, type ContextOptionsInput } from "./context-options.js";

/** The options every HistoryContextManager reads, defaults applied. */
export function parseContextOptions(moduleName: string, input: ContextOptionsInput): ContextOptions {
  return parseModuleConfig(moduleName, contextOptionsSchema, input);
}

/** Parses a module's config with its zod mirror; the first issue becomes INVALID_MODULE_CONFIG. */
export function parseModuleConfig<T>(moduleName: string, schema: ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = ["config", ...issue.path.map(String)].join(".");
  throw createError("INVALID_MODULE_CONFIG", issue.message, {
    module: moduleName,
    path,
    expected: issue.message,
    given: valueAt(input, issue.path),
    hint: issue.code === "unrecognized_keys" ? `allowed keys: ${Object.keys((schema as unknown as { shape?: object }).shape ?? {}).join(", ")}` : undefined,
  });
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<PropertyKey, unknown> | undefined)?.[k], input);
}
