export { createSession, DEFAULT_SESSION_CONFIG, SESSION_DEFAULTS } from "./create-session.js";
export { BUILTIN_MODULES, BUILTIN_MODULE_NAMES, builtinModuleNames, builtinModuleFile } from "./builtin-modules.js";
export { resolveMemoryRef, withMemoryFromEnvironment, MEMORY_ENV_VARIABLES, MEMORY_TYPES } from "./memory-from-environment.js";
