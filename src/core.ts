// amplifier-ts/core: the kernel, @amplifier-ts/core — the Coordinator and its mount points, the
// hook bus (HookBus, the fold, the hook-result checks), the module loader (mountModule,
// loadModule, resolveModule, the built-in module table), the config (loadConfig, validateConfig),
// agent context, the turn helpers — and every contract, which the kernel re-exports. The root keeps
// the few names an orchestrator loop uses; a host that builds its own session reaches the rest here.
export * from "@amplifier-ts/core";
// The kernel's createSession with amplifier-ts's defaults, the built-in module table and the
// default config (src/session), and the turn helpers (src/turn): the umbrella's, not the kernel's.
export { createSession, DEFAULT_SESSION_CONFIG, BUILTIN_MODULES, builtinModuleNames } from "./session/index.js";
export { runTool, startTurn, type StartTurnOptions, type Turn } from "./turn/index.js";
