import { z } from "zod";
import type { AmplifierConfig } from "../generated/amplifier-config.js";

/**
 * zod mirror of contracts/schemas/amplifier-config.schema.json (the source of truth). The shared
 * fixtures in test/fixtures/contracts/amplifier-config/ run through both, so they cannot drift;
 * the type assertion at the bottom keeps the inferred type equal to the generated one. The
 * loader validates with the JSON Schema (its errors become the config error messages); this
 * mirror is for code that builds configs in TypeScript.
 */
const moduleSpecifier = z.string().min(1);
const moduleConfig = z.record(z.string(), z.unknown());
const displayName = z.string().min(1);

export const sessionModuleRefSchema = z.strictObject({
  module: moduleSpecifier,
  config: moduleConfig.optional(),
  name: displayName.optional(),
});

export const moduleRefSchema = z.strictObject({
  module: moduleSpecifier,
  config: moduleConfig.optional(),
  name: displayName.optional(),
  optional: z.boolean().optional(),
});

export const namedModuleRefSchema = z.strictObject({
  module: moduleSpecifier,
  config: moduleConfig.optional(),
  name: displayName,
  optional: z.boolean().optional(),
});

export const amplifierConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  session: z.strictObject({
    orchestrator: sessionModuleRefSchema.optional(),
    context: sessionModuleRefSchema,
  }),
  providers: z.array(namedModuleRefSchema).optional(),
  tools: z.array(namedModuleRefSchema).optional(),
  hooks: z.array(moduleRefSchema).optional(),
  mountTimeoutMs: z.number().int().positive().max(2_147_483_647).optional(),
});

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Fails to compile when the mirror and the generated type disagree. */
export const amplifierConfigMirrorsGeneratedType: Same<z.infer<typeof amplifierConfigSchema>, AmplifierConfig> = true;
