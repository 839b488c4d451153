import { createSessionWith, type AmplifierConfig, type CreateSession } from "@amplifier-ts/core";
import { TOKENS_CAPABILITY, tokensCapability } from "@amplifier-ts/tokens";
import { BUILTIN_MODULE_NAMES } from "./builtin-modules.js";
import { withMemoryFromEnvironment } from "./memory-from-environment.js";

/** The config used when there is no argument and no ./amplifier.config.json. */
export const DEFAULT_SESSION_CONFIG: AmplifierConfig = Object.freeze({
  session: { context: { module: "context-simple", config: {} } },
}) as AmplifierConfig;

/**
 * The policy amplifier-ts adds to the kernel's session, in one place:
 *
 * | option         | what amplifier-ts gives                                                      |
 * |----------------|------------------------------------------------------------------------------|
 * | capabilities   | "tokens": exact token counting (@amplifier-ts/tokens), for modules without a tokenizer |
 * | moduleNames    | the built-in table (builtin-modules.ts): `context-simple`, `memory-redis` …  |
 * | defaultConfig  | DEFAULT_SESSION_CONFIG (context-simple)                                       |
 * | prepareConfig  | the memory entry over MEMORY_* environment variables (memory-from-environment.ts) |
 */
export const SESSION_DEFAULTS = Object.freeze({
  capabilities: { [TOKENS_CAPABILITY]: tokensCapability() },
  moduleNames: BUILTIN_MODULE_NAMES,
  defaultConfig: DEFAULT_SESSION_CONFIG,
  prepareConfig: (config: AmplifierConfig): AmplifierConfig => withMemoryFromEnvironment(config, process.env),
});

/**
 * Start a session: the kernel's createSession (@amplifier-ts/core) with amplifier-ts's defaults.
 * Same arguments, same typing of `session.context` (ContextModules); a call's options win.
 */
export const createSession: CreateSession = createSessionWith(SESSION_DEFAULTS);
