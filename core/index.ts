// @amplifier-ts/core: the kernel (mechanism) and every contract. Built-in modules (policy) are
// npm packages reached by name through the loader (loader/builtin-modules.ts); core imports none.

export * from "@amplifier-ts/contracts";
export { Coordinator, DEFAULT_MAX_INJECTION_BYTES, DEFAULT_MOUNT_TIMEOUT_MS } from "./coordinator.js";
export { MOUNT_POINTS } from "./mount-points.js";
export { runWithAgentContext, currentAgentContext, requireAgentContext, childAgentContext } from "./agent-context.js";
export * from "./hooks/index.js";
export * from "./tokens/index.js";
export { createSession, DEFAULT_SESSION_CONFIG, TOKENS_CAPABILITY, type Session, type CreateSessionOptions, type TokensCapability, type ContextModules, type ContextOfModule, type AnyContext } from "./session.js";
export {
  mountConfiguredModules,
  mountModule,
  loadModule,
  resolveModule,
  validateModuleConfig,
  BUILTIN_MODULES,
  builtinModuleNames,
  type ModuleReport,
  type LoadedModule,
  type ModuleConfigLocation,
} from "./loader/index.js";
export { loadConfig, validateConfig, configFromObject, DEFAULT_CONFIG_FILE, type LoadedConfig } from "./config/index.js";
export type * from "@amplifier-ts/contracts";
export { didYouMean } from "./config/suggest-key.js";
export { type SessionConfigInput, type SessionListeners } from "./session.js";
export { STORAGE_WARNING_CODES, type SessionDegradation } from "./storage-health.js";
// The standard events of a hand-written orchestrator loop (prompt:submit, tool:pre/post, prompt:complete).
export { runTool, startTurn, type StartTurnOptions, type Turn } from "./turn/index.js";
