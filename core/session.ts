import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { ContextManager } from "@amplifier-ts/contracts";
import type { AmplifierConfig } from "@amplifier-ts/contracts";
import { checkOptions } from "./config/check-options.js";
import { configFromObject, DEFAULT_CONFIG_FILE, loadConfig, type LoadedConfig } from "./config/load-config.js";
import { Coordinator } from "./coordinator.js";
import { getTokenCounter } from "./tokens/index.js";
import { createError } from "@amplifier-ts/contracts";
import { mountConfiguredModules, type ModuleReport } from "./loader/mount-configured-modules.js";
import { watchStorageHealth, type SessionDegradation } from "./storage-health.js";
import type { AmplifierEvents, Observer } from "@amplifier-ts/contracts";

/** What createSession accepts as a config object: the shape of amplifier.config.json. */
export type SessionConfigInput = AmplifierConfig;

/** The config used when there is no argument and no ./amplifier.config.json. */
export const DEFAULT_SESSION_CONFIG: AmplifierConfig = Object.freeze({
  session: { context: { module: "context-simple", config: {} } },
}) as AmplifierConfig;

export interface CreateSessionOptions {
  /** Folder for ./amplifier.config.json and for resolving an object config's relative module paths. Default process.cwd(). */
  cwd?: string;
  sessionId?: string;
  /** Overrides the config file's mountTimeoutMs (default 30 000 ms). */
  mountTimeoutMs?: number;
  /** Cache folder for compiled .ts modules. */
  cacheDir?: string;
  /**
   * Observers registered on the session's bus before any module mounts, so they hear what a
   * module says while mounting (`context:storage_fallback`, `module:mounted` …), which
   * `session.hooks.on(…)` after createSession cannot.
   */
  on?: SessionListeners;
}

/** `createSession`'s `on` option: an observer per event name, its payload typed by the event map. */
export type SessionListeners = { [K in keyof AmplifierEvents]?: Observer<AmplifierEvents[K]> };

/**
 * The manager type of each context module, by the name a config gives it — how createSession types
 * `session.context` without a cast. A context module registers its type by module augmentation
 * (the built-ins do; a third party can, under its package name):
 *
 *   declare module "@amplifier-ts/core" { interface ContextModules { "context-simple": HistoryContextManager } }
 *
 * A name nobody registered types as ContextManager, the contract every context module keeps.
 */
export interface ContextModules {}

/**
 * The type of `session.context` for a config whose context entry is `module: Name`; a name typed
 * only as `string` is decided at run time: AnyContext.
 */
export type ContextOfModule<Name extends string> = string extends Name
  ? AnyContext
  : Name extends keyof ContextModules
    ? ContextModules[Name] extends ContextManager
      ? ContextModules[Name]
      : ContextManager
    : ContextManager;

/**
 * `session.context` when the context module is decided at run time (a config file, nothing, a
 * module name typed `string`): the contract's methods, and — optional, since the module mounted
 * may lack them — what the registered context modules add (the built-ins: explainLastWindow,
 * search, runs, setTools). So `session.context.explainLastWindow?.()` type-checks, no cast.
 */
export type AnyContext = [keyof ContextModules] extends [never]
  ? ContextManager
  : ContextManager & Partial<Omit<ContextModules[keyof ContextModules], keyof ContextManager>>;

export interface Session<Context extends ContextManager = ContextManager> {
  coordinator: Coordinator;
  /** `coordinator.hooks`, at hand. */
  hooks: Coordinator["hooks"];
  /** The mounted context manager: typed by the config's context module (ContextModules), or by createSession<Context>. */
  context: Context;
  /** What happened to each module of the config (all "mounted", or "skipped" for failed optional ones). */
  modules: ModuleReport[];
  /** The config file, or undefined for an object config or the default. */
  configFile: string | undefined;
  /**
   * Undefined while the storage keeps every guarantee; otherwise what the context module said: it
   * fell back to memory, skipped torn records on open, or lost a guarantee (storage-health.ts).
   */
  readonly degraded: SessionDegradation | undefined;
  /** coordinator.cleanup(): every cleanup, newest first. Calling it again returns the same promise. */
  close(): Promise<void>;
}

/** Name of the capability through which a session offers exact token counting. */
export const TOKENS_CAPABILITY = "tokens";

/** What `coordinator.getCapability("tokens")` returns in a session made by createSession. */
export interface TokensCapability {
  getTokenCounter: typeof getTokenCounter;
}

/**
 * Start a session from a config: an object, a path to a config file, or nothing — then
 * ./amplifier.config.json when it exists, else the default (context-simple). Every module is
 * loaded, validated and mounted (core/loader). If a required module fails, the cleanups of what
 * was already mounted run and the module's error is thrown: no half-mounted session survives.
 *
 * Typing `session.context`:
 *
 * | call                                                         | session.context                         |
 * |--------------------------------------------------------------|-----------------------------------------|
 * | a config object whose context module is a literal name       | ContextOfModule<name> (ContextModules)  |
 * | `createSession<Manager>(…)`, any argument                    | Manager (the caller's word, unchecked)  |
 * | a config object naming a module nobody registered            | ContextManager                          |
 * | a path, nothing, or a config whose module name is a `string` | AnyContext (the built-ins' extras optional) |
 */
export function createSession<Name extends string>(
  config: SessionConfigInput & { session: { context: { module: Name } } },
  options?: CreateSessionOptions,
): Promise<Session<ContextOfModule<Name>>>;
export function createSession<Context extends ContextManager = AnyContext>(configOrPath?: SessionConfigInput | string, options?: CreateSessionOptions): Promise<Session<Context>>;
export async function createSession(configOrPath?: SessionConfigInput | string, options: CreateSessionOptions = {}): Promise<Session> {
  checkOptions("createSession", options, { cwd: "string", sessionId: "string", mountTimeoutMs: "milliseconds", cacheDir: "string", on: "object" });
  const loaded = await loadSessionConfig(configOrPath, options.cwd ?? process.cwd());
  const timeout = options.mountTimeoutMs ?? loaded.config.mountTimeoutMs;
  const coordinator = new Coordinator({
    config: loaded.config as unknown as Record<string, unknown>,
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    ...(timeout === undefined ? {} : { mountTimeoutMs: timeout }),
  });

  // Exact token counting for modules that do not bundle a tokenizer (third-party context modules
  // ask for it with getCapability("tokens")): registered before anything mounts.
  coordinator.registerCapability(TOKENS_CAPABILITY, { getTokenCounter } satisfies TokensCapability);
  const listening: Array<() => void> = [];
  for (const [event, observer] of Object.entries(options.on ?? {})) {
    // The bus checks the name (INVALID_EVENT_NAME) and the function (INVALID_ARGUMENT).
    if (observer !== undefined) listening.push(coordinator.hooks.on(event as keyof AmplifierEvents, observer as Observer<unknown>));
  }
  const storage = watchStorageHealth(coordinator.hooks, loaded.config.session.context?.module ?? "the context module");
  // Registered before any module: cleanups run newest first, so the listeners still hear what the
  // modules say while they close (a token-counts file that cannot be written …), then go.
  coordinator.registerCleanup(() => {
    storage.stop();
    for (const unregister of listening) unregister();
  });

  const outcome = await mountConfiguredModules(coordinator, loaded.config, {
    baseDir: loaded.baseDir,
    ...(loaded.file === undefined ? {} : { file: loaded.file }),
    ...(timeout === undefined ? {} : { mountTimeoutMs: timeout }),
    ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
  });
  if (outcome.error !== undefined) {
    try {
      await coordinator.cleanup();
    } catch (cleanupError) {
      // The mount failure is the news; a failing cleanup rides along instead of replacing it.
      outcome.error.details.cleanupError = cleanupError;
    }
    throw outcome.error;
  }
  storage.mounted();

  let closing: Promise<void> | undefined;
  return {
    coordinator,
    hooks: coordinator.hooks,
    // mountConfiguredModules checked that the context entry filled the slot.
    context: coordinator.get("context") as ContextManager,
    modules: outcome.modules,
    configFile: loaded.file,
    get degraded() {
      return storage.degraded;
    },
    close: () => (closing ??= coordinator.cleanup()),
  };
}

async function loadSessionConfig(configOrPath: SessionConfigInput | string | undefined, cwd: string): Promise<LoadedConfig> {
  if (typeof configOrPath === "string") return loadConfig(configOrPath, cwd);
  if (configOrPath === undefined) {
    const file = resolve(cwd, DEFAULT_CONFIG_FILE);
    return existsSync(file) ? loadConfig(file) : configFromObject(DEFAULT_SESSION_CONFIG, cwd);
  }
  if (typeof configOrPath !== "object" || configOrPath === null || Array.isArray(configOrPath)) {
    throw createError("INVALID_ARGUMENT", "createSession() takes a config object, a path to a config file, or nothing", {
      expected: "an AmplifierConfig object, a string path, or undefined",
      given: configOrPath,
    });
  }
  return configFromObject(configOrPath, cwd);
}
