// amplifier-ts/core: the kernel, @amplifier-ts/core — the Coordinator and its mount points, the
// hook bus (HookBus, the fold, the hook-result checks), the module loader (mountModule,
// loadModule, resolveModule, the built-in module table), the config (loadConfig, validateConfig),
// agent context, the turn helpers — and every contract, which the kernel re-exports. The root keeps
// the few names an orchestrator loop uses; a host that builds its own session reaches the rest here.
export * from "@amplifier-ts/core";
