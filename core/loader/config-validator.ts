import { z, type ZodType } from "zod";

/**
 * The validator of a module's `meta.configSchema`: a zod schema as is, or a JSON Schema turned
 * into one by zod's `z.fromJSONSchema` — one engine validates every config, and one translator
 * (contracts' formatIssues) words every problem.
 *
 * JSON Schema drafts 07, 2019-09 and 2020-12 are read. `z.fromJSONSchema` refuses a few
 * keywords (if/then/else, not, dependentSchemas, unevaluatedItems); such a schema makes the
 * module's meta invalid, said when the module is loaded. `unevaluatedProperties`, the 2019+
 * spelling of "no other keys", is read as `additionalProperties` where the two mean the same: on
 * an object schema that has no `additionalProperties` and no in-place applicator (allOf, anyOf,
 * oneOf, $ref …) that could evaluate more keys.
 *
 * Compiled once per schema object (a module's meta is loaded once per process).
 */
export function configValidator(schema: object): ZodType {
  let validator = compiled.get(schema);
  if (validator === undefined) {
    validator = isZodSchema(schema) ? schema : z.fromJSONSchema(withoutUnevaluatedProperties(schema) as Parameters<typeof z.fromJSONSchema>[0]);
    compiled.set(schema, validator);
  }
  return validator;
}

export function isZodSchema(value: unknown): value is ZodType {
  return typeof value === "object" && value !== null && "_zod" in value && typeof (value as { safeParse?: unknown }).safeParse === "function";
}

const compiled = new WeakMap<object, ZodType>();

const IN_PLACE_APPLICATORS = ["allOf", "anyOf", "oneOf", "$ref", "$dynamicRef", "if", "dependentSchemas", "patternProperties", "additionalProperties"];
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions"];
const SUBSCHEMA_SLOTS = ["items", "additionalProperties", "not", "contains", "propertyNames"];
const SUBSCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];

/** A copy where each equivalent `unevaluatedProperties` reads `additionalProperties`; others are left for zod to refuse. */
function withoutUnevaluatedProperties(node: unknown): unknown {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return node;
  const copy: Record<string, unknown> = { ...(node as Record<string, unknown>) };
  if ("unevaluatedProperties" in copy && IN_PLACE_APPLICATORS.every((keyword) => !(keyword in copy))) {
    copy.additionalProperties = copy.unevaluatedProperties;
    delete copy.unevaluatedProperties;
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = copy[key];
    if (typeof map === "object" && map !== null && !Array.isArray(map)) {
      copy[key] = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, withoutUnevaluatedProperties(sub)]));
    }
  }
  for (const key of SUBSCHEMA_SLOTS) if (key in copy) copy[key] = withoutUnevaluatedProperties(copy[key]);
  for (const key of SUBSCHEMA_LISTS) if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map(withoutUnevaluatedProperties);
  return copy;
}
