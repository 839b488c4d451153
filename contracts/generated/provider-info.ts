/* eslint-disable */
/**
 * Generated from contracts/schemas/provider-info.schema.json by `npm run contracts` (contracts/generate.mjs) — do not edit.
 * The schemas are emitted from their zod sources (contracts/emit-schemas.mjs): edit those and run
 * `npm run contracts`; test/contracts/generated-fresh.test.ts fails while this file is stale.
 */

/**
 * What a provider's getInfo() returns; context managers size their budget from defaults.
 */
export interface ProviderInfo {
  id: string;
  display_name?: string;
  defaults?: {
    model?: string;
    context_window?: number;
    max_output_tokens?: number;
    [k: string]: unknown;
  };
  capabilities?: string[];
  [k: string]: unknown;
}
