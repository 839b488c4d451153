/**
 * amplifier-module-context-example — a third-party context module for amplifier-ts.
 *
 * Plain ES module, no dependencies, no runtime import of amplifier-ts: everything it needs
 * comes through mount(coordinator, config). Configure it in amplifier.config.json:
 *
 *   { "session": { "context": { "module": "amplifier-module-context-example", "config": { "maxTurns": 3 } } } }
 */
import { ContextExampleError, MODULE_NAME } from "./errors.js";
import { DEFAULTS, RecentTurnsContext } from "./recent-turns-context.js";

export { ContextExampleError, RecentTurnsContext };

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
 * Mounts a RecentTurnsContext in the coordinator's context slot. Token counting uses the host's
 * "tokens" capability when it offers one (looked up at each request, so mount order does not
 * matter), else a proven upper bound (token-count.js).
 */
export async function mount(coordinator, config = {}) {
  if (typeof coordinator?.mount !== "function" || typeof coordinator?.getCapability !== "function") {
    throw new ContextExampleError("INVALID_ARGUMENT", "mount() needs an amplifier-ts coordinator", {
      path: "coordinator",
      expected: "an object with mount() and getCapability()",
      given: coordinator,
    });
  }
  const context = new RecentTurnsContext({
    ...checkConfig(config ?? {}),
    hooks: coordinator.hooks,
    tokens: () => coordinator.getCapability("tokens"),
  });
  await coordinator.mount("context", context);
  return context;
}

/** The loader validated against meta.configSchema already; a host without one gets the same rules here. */
function checkConfig(config) {
  const fail = (key, expected, given) => {
    throw new ContextExampleError("INVALID_MODULE_CONFIG", `config.${key}: expected ${expected}`, { path: `config.${key}`, expected, given });
  };
  if (typeof config !== "object" || Array.isArray(config)) fail("", "an object", config);
  const known = meta.configSchema.properties;
  for (const [key, value] of Object.entries(config)) {
    const rule = known[key];
    if (rule === undefined) fail(key, `one of ${Object.keys(known).join(", ")} (unknown key)`, value);
    if (rule.type === "integer" && !(Number.isInteger(value) && value >= rule.minimum)) fail(key, `a whole number ≥ ${rule.minimum}`, value);
    if (rule.type === "string" && !(typeof value === "string" && value.length > 0)) fail(key, "a non-empty string", value);
  }
  return config;
}
