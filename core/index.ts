// @amplifier-ts/core: the kernel (mechanism) and every contract. Modules (policy) are npm packages
// reached by name through the loader (a distribution's aliases, or the naming convention in
// loader/module-names.ts); core imports and names none.

export * from "@amplifier-ts/contracts";
export { Coordinator, DEFAULT_MAX_INJECTION_BYTES, DEFAULT_MOUNT_TIMEOUT_MS } from "./coordinator.js";
export { MOUNT_POINTS } from "./mount-points.js";
export { runWithAgentContext, currentAgentContext, requireAgentContext, childAgentContext } from "./agent-context.js";
export * from "./hooks/index.js";
export { createSession, createSessionWith, type CreateSession, type Session, type CreateSessionOptions, type ContextModules, type ContextOfModule, type AnyContext } from "./session.js";
export {
  mountConfiguredModules,
  mountModule,
  loadModule,
  resolveModule,
  validateModuleConfig,
  MODULE_PACKAGE_PREFIX,
  resolveNamedPackage,
  type ModuleNames,
  type ModuleReport,
  type LoadedModule,
  type ModuleConfigLocation,
} from "./loader/index.js";
export { loadConfig, validateConfig, configFromObject, DEFAULT_CONFIG_FILE, type LoadedConfig } from "./config/index.js";
export type * from "@amplifier-ts/contracts";
export { didYouMean } from "./config/suggest-key.js";
export { type SessionConfigInput, type SessionListeners } from "./session.js";
export { STORAGE_WARNING_CODES, type SessionDegradation } from "./storage-health.js";
