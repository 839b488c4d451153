// @amplifier-ts/module-provider-openai: OpenAI Chat Completions or Responses on the official SDK.
import type { CoordinatorContract, ModuleMeta } from "@amplifier-ts/contracts";
import { openAIProviderConfigSchema, type OpenAIProviderConfigInput } from "./openai-config.js";
import { OpenAIProvider } from "./openai-provider.js";

export { OpenAIProvider, type OpenAIProviderInit } from "./openai-provider.js";
export { openAIProviderConfigSchema, resolveOpenAIConfig, type OpenAIProviderConfig, type OpenAIProviderConfigInput, type ResolvedOpenAIConfig } from "./openai-config.js";

export const meta: ModuleMeta = {
  name: "provider-openai",
  version: "0.1.0",
  kind: "provider",
  description: "OpenAI Chat Completions or Responses (config api) on the official openai SDK; windows converted by @amplifier-ts/adapters.",
  configSchema: openAIProviderConfigSchema,
};

/**
 * Returns the provider; the loader mounts it at `providers` under the config entry's `name`.
 * Events go to the coordinator's bus.
 */
export function mount(coordinator: CoordinatorContract, config: OpenAIProviderConfigInput): OpenAIProvider {
  return new OpenAIProvider(config, { hooks: coordinator.hooks });
}
