import { contextOptionsSchema, type ContextOptionsInput } from "@amplifier-ts/context-manager";

/**
 * context-simple's config: the context options every built-in context module shares (zod, in
 * @amplifier-ts/context-manager). The module validates with it; schemas/context-simple.config.schema.json
 * is emitted from it for editors (`npm run schemas`).
 */
export const contextSimpleConfigSchema = contextOptionsSchema;

export type ContextSimpleConfig = ContextOptionsInput;
