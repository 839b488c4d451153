/**
 * Parsing a context module's config with its zod mirror. Shared by every built-in context module
 * (context-simple through HistoryContextManager, context-persistent for its own options) so a bad
 * config is reported the same way everywhere: INVALID_MODULE_CONFIG with the config path of the
 * first problem, what was expected and what was given, and every problem in `issues`.
 */
import type { ZodType } from "zod";
import { parseValid } from "@amplifier-ts/contracts";
import { contextOptionsSchema, type ContextOptions, type ContextOptionsInput } from "./context-options.js";

/** The options every HistoryContextManager reads, defaults applied. */
export function parseContextOptions(moduleName: string, input: ContextOptionsInput): ContextOptions {
  return parseModuleConfig(moduleName, contextOptionsSchema, input);
}

/**
 * Parses a module's config with its zod schema; problems become INVALID_MODULE_CONFIG through
 * the one translator (contracts' parseValid): the first one's path (`config.maxTokens`), expected,
 * given and did-you-mean on top, every one in `issues`.
 */
export function parseModuleConfig<T>(moduleName: string, schema: ZodType<T>, input: unknown): T {
  return parseValid(schema, input, { code: "INVALID_MODULE_CONFIG", path: "config", details: { module: moduleName } });
}
