import type { ContextManager } from "./context-manager.js";
import type { AmplifierEvents } from "./events.js";
import type { Message } from "./generated/message.js";
import type { HookBusContract } from "./hook-bus.js";
import type { AnyHookResult, HookAction } from "./hook-result.js";
import type { Provider } from "./provider.js";
import type { Tool } from "./tool.js";

/**
 * Where modules mount. `orchestrator`, `context` and `memory` (the agent's event log,
 * contracts/MEMORY.md) hold one module each; `providers` and `tools`
 * hold named modules. `session` exists only as the Python contract's spelling of the context slot:
 * `mount("session", ctx, "context")` is `mount("context", ctx)`.
 */
export type MountPoint = "orchestrator" | "context" | "memory" | "providers" | "tools" | "session";
export type SingleMountPoint = "orchestrator" | "context" | "memory";
export type NamedMountPoint = "providers" | "tools";

/** Name of the capability `ask_user` results are sent to. */
export const APPROVAL_CAPABILITY = "approval";

/** What the approval capability is asked. `timeout` is in seconds, like HookResult.approval_timeout. */
export interface ApprovalRequest {
  prompt: string;
  options: string[];
  timeout?: number;
  default: "allow" | "deny";
  hook: string;
  event: string;
}

/**
 * The service behind `coordinator.getCapability("approval")`. Answers "allow", "deny", or one of
 * the offered options; an option that is "deny" or starts with "deny" (any case) denies.
 */
export interface ApprovalCapability {
  requestApproval(request: ApprovalRequest): Promise<"allow" | "deny" | (string & {})>;
}

/** Name of the capability through which the loader tells modules where their config's relative paths start. */
export const CONFIG_LOCATION_CAPABILITY = "config";

/**
 * The service behind `coordinator.getCapability("config")` while a config mounts (and after): a
 * module resolves a relative path of its config (a storage folder, a file) from `baseDir`, as
 * the loader resolves relative module paths.
 */
export interface ConfigLocationCapability {
  /** The config file's folder; for a config object, the folder it was given for (createSession's `cwd`). */
  readonly baseDir: string;
  /** The config file, when there is one. */
  readonly file?: string;
}

/**
 * What `processHookResult` did. `action` is resolved: `ask_user` never comes back, it becomes
 * `continue` (approved) or `deny` (refused, timed out, or no approval capability).
 */
export interface HookResultOutcome {
  action: Exclude<HookAction, "ask_user">;
  /** Present when the result asked the user: whether the answer allowed it. */
  approved?: boolean;
  /** The raw answer of the approval capability. */
  decision?: string;
  /** Why it was denied (the hook's reason, or the kernel's). */
  reason?: string;
  /** Every injected message, stored ones and ephemeral ones (metadata.ephemeral === true). */
  injected?: Message[];
}

export interface CoordinatorOptions {
  /** Defaults to a random UUID. */
  sessionId?: string;
  config?: Record<string, unknown>;
  /** Largest accepted context injection, in UTF-8 bytes. Default 64 KiB. */
  maxInjectionBytes?: number;
  /** Largest accepted total of the injections of one result (one emit's folded result), in UTF-8 bytes. Default 128 KiB. */
  maxInjectionTotalBytes?: number;
  /** How long the loader lets a module's mount() take, in ms. Default 30 000. */
  mountTimeoutMs?: number;
  /** Default timeout of hook handlers, in ms. Default 30 000. */
  hookTimeoutMs?: number;
}

/**
 * The coordinator as modules see it (contracts/ never imports core/). See contracts/HOOKS.md
 * for hook-result processing and contracts/MODULES.md for mounting.
 */
export interface CoordinatorContract {
  readonly sessionId: string;
  readonly hooks: HookBusContract<AmplifierEvents>;
  readonly config: Readonly<Record<string, unknown>>;
  readonly maxInjectionBytes: number;
  readonly mountTimeoutMs: number;

  mount(point: MountPoint, module: unknown, name?: string): Promise<void>;

  get(point: "context" | "session", name?: string): ContextManager | undefined;
  get(point: "orchestrator", name?: string): unknown;
  get(point: "providers", name: string): Provider | undefined;
  get(point: "tools", name: string): Tool | undefined;
  /** Without a name, a named point answers with a snapshot of all its modules. */
  get(point: "providers"): Readonly<Record<string, Provider>>;
  get(point: "tools"): Readonly<Record<string, Tool>>;
  get(point: MountPoint, name?: string): unknown;

  unmount(point: MountPoint, name?: string): Promise<void>;

  /** Runs at cleanup(), in reverse order of registration. Returns its own unregister. */
  registerCleanup(fn: () => unknown): () => void;
  cleanup(): Promise<void>;

  registerCapability(name: string, value: unknown): () => void;
  getCapability<T = unknown>(name: string): T | undefined;

  processHookResult(result: AnyHookResult, event: string, hookName: string): Promise<HookResultOutcome>;
  /** The ephemeral injections waiting for the next request; taking them empties the list. */
  takeEphemeralInjections(): Message[];
}
