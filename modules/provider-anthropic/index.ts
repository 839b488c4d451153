// @amplifier-ts/module-provider-anthropic: the Anthropic Messages API on the official SDK.
import type { CoordinatorContract, ModuleMeta } from "@amplifier-ts/contracts";
import { anthropicProviderConfigSchema, type AnthropicProviderConfigInput } from "./anthropic-config.js";
import { AnthropicProvider } from "./anthropic-provider.js";

export { AnthropicProvider, type AnthropicProviderInit } from "./anthropic-provider.js";
export { anthropicProviderConfigSchema, resolveAnthropicConfig, type AnthropicProviderConfig, type AnthropicProviderConfigInput, type ResolvedAnthropicConfig } from "./anthropic-config.js";

export const meta: ModuleMeta = {
  name: "provider-anthropic",
  version: "0.1.0",
  kind: "provider",
  description: "The Anthropic Messages API on the official @anthropic-ai/sdk; windows converted by @amplifier-ts/adapters, prompt-cache breakpoints on the stable prefix.",
  configSchema: anthropicProviderConfigSchema,
};

/**
 * Returns the provider; the loader mounts it at `providers` under the config entry's `name`.
 * Events go to the coordinator's bus.
 */
export function mount(coordinator: CoordinatorContract, config: AnthropicProviderConfigInput): AnthropicProvider {
  return new AnthropicProvider(config, { hooks: coordinator.hooks });
}
