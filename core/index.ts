// Package root of amplifier-ts: the kernel (mechanism) and every contract type.
// Built-in modules (policy) are reached by name through the loader, or imported from
// "amplifier-ts/modules/<name>"; core never imports them.

export * from "./errors.js";
export { Coordinator, DEFAULT_MAX_INJECTION_BYTES, DEFAULT_MOUNT_TIMEOUT_MS } from "./coordinator.js";
export { MOUNT_POINTS } from "./mount-points.js";
export * from "./hooks/index.js";
export * from "./tokens/index.js";
export { createSession, DEFAULT_SESSION_CONFIG, TOKENS_CAPABILITY, type Session, type CreateSessionOptions, type TokensCapability } from "./session.js";
export {
  mountConfiguredModules,
  mountModule,
  loadModule,
  resolveModule,
  BUILTIN_MODULES,
  builtinModuleNames,
  type ModuleReport,
  type LoadedModule,
} from "./loader/index.js";
export { loadConfig, validateConfig, configFromObject, DEFAULT_CONFIG_FILE, type LoadedConfig } from "./config/index.js";
export { runReplay, type ReplayOptions, type ReplayResult, type ReplayTurn, type ReplaySummary } from "./replay/run-replay.js";
export { runCli } from "./cli/run-cli.js";
export type * from "../contracts/index.js";
