import type { AnySchemaObject, ValidateFunction } from "ajv";
import type { ModuleKind, ModuleMeta } from "@amplifier-ts/contracts";
import { createAjv } from "../config/create-ajv.js";
import { createError, type AmplifierError } from "@amplifier-ts/contracts";

/** The kinds a meta may declare; a Record so a kind added to the contract must be listed here. */
const MODULE_KINDS: Record<ModuleKind, true> = { orchestrator: true, context: true, provider: true, tool: true, hook: true };

/** Compiled config validators, one per schema object (a module's meta is loaded once per process). */
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Check a module's `meta` export when it is loaded, not when it runs (fastify's rule): a name,
 * optional version / kind / description strings, and a `configSchema` that compiles as a JSON
 * Schema. Returns the meta typed; throws INVALID_MODULE_META naming the offending field.
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
  if (m.configSchema !== undefined) {
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

/**
 * The compiled validator of a config schema. One ajv instance per schema: third-party schemas
 * may reuse an `$id`, which a shared instance would reject, and may use any keyword (strict off).
 */
export function configValidator(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = createAjv(schema as AnySchemaObject, { strict: false }).compile(schema as AnySchemaObject);
    compiled.set(schema, validate);
  }
  return validate;
}
