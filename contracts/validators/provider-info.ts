import { z } from "zod";
import type { ProviderInfo } from "../generated/provider-info.js";
import { assertValid } from "./validation-error.js";
import { jsonInteger, nonEmptyString } from "./json-schema-types.js";

/**
 * ProviderInfo's schema — the source of truth of contracts/schemas/provider-info.schema.json and
 * the generated ProviderInfo type. Providers may add their own keys at the top level and in
 * `defaults`; the known ones are typed.
 */
export const providerDefaultsSchema = z.looseObject({
  model: z.string().optional(),
  context_window: jsonInteger({ exclusiveMinimum: 0 }).optional(),
  max_output_tokens: jsonInteger({ minimum: 0 }).optional(),
});

export const providerInfoSchema = z
  .looseObject({
    id: nonEmptyString,
    display_name: z.string().optional(),
    defaults: providerDefaultsSchema.optional(),
    capabilities: z.array(z.string()).optional(),
  })
  .meta({ title: "ProviderInfo", description: "What a provider's getInfo() returns; context managers size their budget from defaults." });

/**
 * `value` as ProviderInfo (the same object), or AmplifierError INVALID_PROVIDER_INFO naming the
 * field (`providerInfo.defaults.context_window`), what was expected and what was given.
 */
export function validateProviderInfo(value: unknown, path = "providerInfo"): ProviderInfo {
  return assertValid(providerInfoSchema, value, "INVALID_PROVIDER_INFO", path) as ProviderInfo;
}

/** Whether `value` is ProviderInfo; never throws. */
export function isValidProviderInfo(value: unknown): value is ProviderInfo {
  return providerInfoSchema.safeParse(value).success;
}
