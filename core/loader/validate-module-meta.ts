import type { ModuleKind, ModuleMeta } from "@amplifier-ts/contracts";
import { createError, type AmplifierError } from "@amplifier-ts/contracts";
import { configValidator, isZodSchema } from "./config-validator.js";

/** The kinds a meta may declare; a Record so a kind added to the contract must be listed here. */
const MODULE_KINDS: Record<ModuleKind, true> = { orchestrator: true, context: true, memory: true, provider: true, tool: true, hook: true };

/**
 * Check a module's `meta` export when it is loaded, not when it runs (fastify's rule): a name,
 * optional version / kind / description strings, and a `configSchema` that is a zod schema or
 * a JSON Schema zod can read (see config-validator.ts). Returns the meta typed; throws INVALID_MODULE_META naming the offending field.
 */
export function validateModuleMeta(meta: unknown, where: { module: string; file?: string }): ModuleMeta {
  const fail = (path: string, expected: string, given: unknown, cause?: unknown): AmplifierError =>
    createError("INVALID_MODULE_META", undefined, {
      module: where.module,
      ...(where.file === undefined ? {} : { file: where.file }),
      path,
      expected,
      given,
      ...(cause === undefined ? {} : { cause }),
    });
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) {
    throw fail("meta", "an object { name, version?, kind?, description?, configSchema? }", meta);
  }
  const m = meta as Record<string, unknown>;
  if (typeof m.name !== "string" || m.name === "") throw fail("meta.name", "a non-empty string", m.name);
  for (const field of ["version", "description"] as const) {
    if (m[field] !== undefined && typeof m[field] !== "string") throw fail(`meta.${field}`, "a string", m[field]);
  }
  if (m.kind !== undefined && !(typeof m.kind === "string" && Object.hasOwn(MODULE_KINDS, m.kind))) {
    throw fail("meta.kind", `one of ${Object.keys(MODULE_KINDS).join(", ")}`, m.kind);
  }
  if (m.configSchema !== undefined && !isZodSchema(m.configSchema)) {
    if (typeof m.configSchema !== "object" || m.configSchema === null || Array.isArray(m.configSchema)) {
      throw fail("meta.configSchema", "a JSON Schema object", m.configSchema);
    }
    try {
      configValidator(m.configSchema);
    } catch (cause) {
      throw fail("meta.configSchema", "a valid JSON Schema (draft-07, 2019-09 or 2020-12)", (cause as Error).message, cause);
    }
  }
  return meta as ModuleMeta;
}
