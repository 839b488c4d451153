import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { ContextManager } from "@amplifier-ts/contracts";
import type { AmplifierConfig } from "@amplifier-ts/contracts";
import { checkOptions } from "./config/check-options.js";
import { configFromObject, DEFAULT_CONFIG_FILE, loadConfig, type LoadedConfig } from "./config/load-config.js";
import { Coordinator } from "./coordinator.js";
import { createError } from "@amplifier-ts/contracts";
import type { ModuleNames } from "./loader/module-names.js";
import { mountConfiguredModules, type ModuleReport } from "./loader/mount-configured-modules.js";
import { watchStorageHealth, type SessionDegradation } from "./storage-health.js";
import type { AmplifierEvents, Observer } from "@amplifier-ts/contracts";

/** What createSession accepts as a config object: the shape of amplifier.config.json. */
export type SessionConfigInput = AmplifierConfig;

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
  /**
   * Capabilities registered on the coordinator before any module mounts (name → value): what a
   * distribution offers every module (amplifier-ts registers exact token counting).
   * Merged over the factory's (createSessionWith).
   */
  capabilities?: Record<string, unknown>;
  /** The distribution's short names for its modules (loader/module-names.ts). */
  moduleNames?: ModuleNames;
  /** The config when there is no argument and no ./amplifier.config.json; without one that is CONFIG_NOT_FOUND. */
  defaultConfig?: AmplifierConfig;
  /**
   * Turns the loaded config into the one mounted: a distribution's overlay (amplifier-ts fills the
   * memory entry from MEMORY_* environment variables). The result is validated like the file.
   */
  prepareConfig?: (config: AmplifierConfig) => AmplifierConfig;
}

const OPTION_KINDS = { cwd: "string", sessionId: "string", mountTimeoutMs: "milliseconds", cacheDir: "string", on: "object" } as const;
const DISTRIBUTION_KINDS = { ...OPTION_KINDS, capabilities: "object", moduleNames: "object", defaultConfig: "object", prepareConfig: "function" } as const;

/** `createSession`'s `on` option: an observer per event name, its payload typed by the event map. */
export type SessionListeners = { [K in keyof AmplifierEvents]?: Observer<AmplifierEvents[K]> };

/**
 * The manager type of each context module, by the name a config gives it — how createSession types
 * `session.context` without a cast. A context module registers its type by module augmentation
 * (the built-ins do; a third party can, under its package name):
 *
 *   declare module "@amplifier-ts/core" { interface ContextModules { "my-context": MyContextManager } }
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

/**
 * Start a session from a config: an object, a path to a config file, or nothing — then
 * ./amplifier.config.json when it exists, else `options.defaultConfig`. Every module is
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
export interface CreateSession {
  <Name extends string>(config: SessionConfigInput & { session: { context: { module: Name } } }, options?: CreateSessionOptions): Promise<Session<ContextOfModule<Name>>>;
  <Context extends ContextManager = AnyContext>(configOrPath?: SessionConfigInput | string, options?: CreateSessionOptions): Promise<Session<Context>>;
}

/**
 * A createSession whose options default to `defaults`: how a distribution (the `amplifier-ts`
 * package) gives every session its capabilities, module names, default config and config overlay,
 * with createSession's typing kept. A call's options win; capabilities merge, the call's over the
 * defaults'.
 */
export function createSessionWith(defaults: CreateSessionOptions): CreateSession {
  checkOptions("createSessionWith", defaults, DISTRIBUTION_KINDS);
  const create = async (configOrPath?: SessionConfigInput | string, options: CreateSessionOptions = {}): Promise<Session> => {
    checkOptions("createSession", options, DISTRIBUTION_KINDS);
    const capabilities = defaults.capabilities === undefined ? options.capabilities : { ...defaults.capabilities, ...options.capabilities };
    return openSession(configOrPath, { ...defaults, ...options, ...(capabilities === undefined ? {} : { capabilities }) });
  };
  return create as CreateSession;
}

/** createSession of the bare kernel: no capabilities, no module names but the convention, no default config. */
export const createSession: CreateSession = createSessionWith({});

async function openSession(configOrPath: SessionConfigInput | string | undefined, options: CreateSessionOptions): Promise<Session> {
  const cwd = options.cwd ?? process.cwd();
  const read = await loadSessionConfig(configOrPath, cwd, options.defaultConfig);
  const loaded = options.prepareConfig === undefined ? read : { ...read, config: options.prepareConfig(read.config) };
  const timeout = options.mountTimeoutMs ?? loaded.config.mountTimeoutMs;
  const coordinator = new Coordinator({
    config: loaded.config as unknown as Record<string, unknown>,
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    ...(timeout === undefined ? {} : { mountTimeoutMs: timeout }),
  });

  // Before anything mounts, so a module finds them while mounting.
  for (const [name, value] of Object.entries(options.capabilities ?? {})) coordinator.registerCapability(name, value);
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
    ...(options.moduleNames === undefined ? {} : { moduleNames: options.moduleNames }),
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

async function loadSessionConfig(configOrPath: SessionConfigInput | string | undefined, cwd: string, defaultConfig: AmplifierConfig | undefined): Promise<LoadedConfig> {
  if (typeof configOrPath === "string") return loadConfig(configOrPath, cwd);
  if (configOrPath === undefined) {
    const file = resolve(cwd, DEFAULT_CONFIG_FILE);
    if (existsSync(file)) return loadConfig(file);
    if (defaultConfig !== undefined) return configFromObject(defaultConfig, cwd);
    throw createError("CONFIG_NOT_FOUND", "createSession() was given no config, and there is no ./amplifier.config.json", {
      file,
      expected: "a config object, a path to a config file, ./amplifier.config.json, or options.defaultConfig",
      hint: "the amplifier-ts package's createSession has a default config",
    });
  }
  if (typeof configOrPath !== "object" || configOrPath === null || Array.isArray(configOrPath)) {
    throw createError("INVALID_ARGUMENT", "createSession() takes a config object, a path to a config file, or nothing", {
      expected: "an AmplifierConfig object, a string path, or undefined",
      given: configOrPath,
    });
  }
  return configFromObject(configOrPath, cwd);
}
