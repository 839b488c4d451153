/**
 * amplifier-module-context-example — a third-party context module for amplifier-ts, written on
 * its toolkit (@amplifier-ts/window, tokens, core and contracts: peer dependencies, the host's copies).
 * Configure it in amplifier.config.json: `"context": { "module": "amplifier-module-context-example" }`.
 */
import { validateModuleConfig } from "@amplifier-ts/core";
import { TOKENS_CAPABILITY } from "@amplifier-ts/tokens";
import { DEFAULTS, MODULE_NAME, RecentTurnsContext } from "./recent-turns-context.js";

export { MODULE_NAME, RecentTurnsContext };

/** Read by the amplifier-ts loader: the config is validated against configSchema before mount(). */
export const meta = Object.freeze({
  name: MODULE_NAME,
  version: "1.0.0",
  kind: "context",
  description: "Keeps the whole conversation in memory; sends the model the most recent turns that fit the budget.",
  configSchema: {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    additionalProperties: false,
    properties: {
      maxTurns: { type: "integer", minimum: 1, default: DEFAULTS.maxTurns, description: "Most user turns a window holds (critical messages come on top)." },
      maxTokens: { type: "integer", minimum: 1, default: DEFAULTS.maxTokens, description: "Budget when the request names none and the provider reports no context window." },
      safetyMargin: { type: "integer", minimum: 0, default: DEFAULTS.safetyMargin, description: "Tokens kept free below context_window − max_output_tokens." },
      model: { type: "string", minLength: 1, default: DEFAULTS.model, description: "Model counted for when the provider names none." },
    },
  },
});

/**
 * Mounts a RecentTurnsContext in the coordinator's context slot. A host that mounts it without
 * the loader gets the loader's own config check (INVALID_MODULE_CONFIG, with "did you mean").
 * Token counting uses the host's "tokens" capability when it offers one — looked up at each
 * request, so mount order does not matter — else @amplifier-ts/tokens' getTokenCounter.
 */
export async function mount(coordinator, config = {}) {
  validateModuleConfig(meta, config, { module: MODULE_NAME, at: ["config"] });
  const context = new RecentTurnsContext({
    ...config,
    hooks: coordinator.hooks,
    tokens: () => coordinator.getCapability(TOKENS_CAPABILITY),
  });
  await coordinator.mount("context", context);
  return context;
}
