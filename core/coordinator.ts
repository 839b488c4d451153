import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { ContextManager } from "@amplifier-ts/contracts";
import type {
  CoordinatorContract,
  CoordinatorOptions,
  HookResultOutcome,
  MountPoint,
  NamedMountPoint,
  SingleMountPoint,
} from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { AnyHookResult } from "@amplifier-ts/contracts";
import type { Provider } from "@amplifier-ts/contracts";
import type { Tool } from "@amplifier-ts/contracts";
import { createError, parseValid } from "@amplifier-ts/contracts";
import { resolveAskUser } from "./hooks/ask-user.js";
import { assertEventName } from "./hooks/event-name.js";
import { HookBus } from "./hooks/hook-bus.js";
import { validateAnyHookResult } from "./hooks/hook-result-schema.js";
import { applyInjections, checkInjections, injectionsOf, type InjectionHost } from "./hooks/inject-context.js";
import { DEFAULT_HOOK_TIMEOUT_MS } from "./hooks/options.js";
import { assertMountable, resolveMount } from "./mount-points.js";

export type { CoordinatorOptions } from "@amplifier-ts/contracts";

export const DEFAULT_MAX_INJECTION_BYTES = 64 * 1024;
/** All injections of one result together (one emit folds every handler's): many small ones add up too. */
export const DEFAULT_MAX_INJECTION_TOTAL_BYTES = 128 * 1024;
export const DEFAULT_MOUNT_TIMEOUT_MS = 30_000;

const optionsSchema = z.strictObject({
  sessionId: z.string().min(1, "a non-empty string").optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  maxInjectionBytes: z.number().int("a whole number of bytes").positive("more than 0 bytes").optional(),
  maxInjectionTotalBytes: z.number().int("a whole number of bytes").positive("more than 0 bytes").optional(),
  mountTimeoutMs: z.number().positive("a timeout in ms greater than 0").optional(),
  hookTimeoutMs: z.number().positive("a timeout in ms greater than 0").optional(),
});

/**
 * The kernel's one object per session: mount points, cleanup, capabilities, the hook bus, and
 * the application of hook results. Mechanism only — what to mount and when is the loader's and
 * the orchestrator's business. No global state: two coordinators never share anything.
 */
export class Coordinator implements CoordinatorContract {
  readonly sessionId: string;
  readonly hooks: HookBus;
  readonly config: Readonly<Record<string, unknown>>;
  readonly maxInjectionBytes: number;
  readonly maxInjectionTotalBytes: number;
  readonly mountTimeoutMs: number;

  readonly #single = new Map<SingleMountPoint, { module: unknown; name: string | undefined }>();
  readonly #named: Record<NamedMountPoint, Map<string, unknown>> = { providers: new Map(), tools: new Map() };
  readonly #cleanups: Array<() => unknown> = [];
  readonly #capabilities = new Map<string, unknown>();
  #ephemeral: Message[] = [];
  #cleanup: Promise<void> | undefined;

  constructor(options: CoordinatorOptions = {}) {
    const o = parseValid(optionsSchema, options ?? {}, { code: "INVALID_ARGUMENT", path: "options" });
    this.sessionId = o.sessionId ?? randomUUID();
    this.config = Object.freeze({ ...(o.config ?? {}) });
    this.maxInjectionBytes = o.maxInjectionBytes ?? DEFAULT_MAX_INJECTION_BYTES;
    this.maxInjectionTotalBytes = o.maxInjectionTotalBytes ?? DEFAULT_MAX_INJECTION_TOTAL_BYTES;
    this.mountTimeoutMs = o.mountTimeoutMs ?? DEFAULT_MOUNT_TIMEOUT_MS;
    this.hooks = new HookBus({ timeoutMs: o.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS });
  }

  // --- mount points ------------------------------------------------------------------------

  /**
   * Put a module in a slot. Errors: UNKNOWN_MOUNT_POINT, MOUNT_NAME_REQUIRED (providers, tools),
   * DUPLICATE_MOUNT_NAME, MOUNT_SLOT_OCCUPIED (unmount first), MOUNT_CONTRACT_MISMATCH,
   * COORDINATOR_CLOSED. On error nothing changed.
   */
  async mount(point: MountPoint, module: unknown, name?: string): Promise<void> {
    if (this.#cleanup) throw createError("COORDINATOR_CLOSED", "cannot mount after cleanup()", { path: String(point) });
    const slot = resolveMount(point, name, true);
    assertMountable(slot.point, module, slot.name);
    if (slot.kind === "single") {
      const current = this.#single.get(slot.point);
      if (current) {
        throw createError("MOUNT_SLOT_OCCUPIED", undefined, {
          path: slot.point,
          ...(current.name === undefined ? {} : { module: current.name }),
          hint: `unmount("${slot.point}") first to replace it`,
        });
      }
      this.#single.set(slot.point, { module, name: slot.name });
      return;
    }
    const modules = this.#named[slot.point];
    const key = slot.name!;
    if (modules.has(key)) {
      throw createError("DUPLICATE_MOUNT_NAME", undefined, { path: `${slot.point}.${key}`, module: key, hint: "names are unique per mount point" });
    }
    modules.set(key, module);
  }

  get(point: "context" | "session", name?: string): ContextManager | undefined;
  get(point: "orchestrator", name?: string): unknown;
  get(point: "providers", name: string): Provider | undefined;
  get(point: "tools", name: string): Tool | undefined;
  get(point: "providers"): Readonly<Record<string, Provider>>;
  get(point: "tools"): Readonly<Record<string, Tool>>;
  get(point: MountPoint, name?: string): unknown;
  /** A single slot's module (a label passed as name is not checked); a named module; or all of a named point. */
  get(point: MountPoint, name?: string): unknown {
    const slot = resolveMount(point, name, false);
    if (slot.kind === "single") return this.#single.get(slot.point)?.module;
    const modules = this.#named[slot.point];
    if (slot.name !== undefined) return modules.get(slot.name);
    return Object.freeze(Object.fromEntries(modules));
  }

  /** Empty a slot. NOT_MOUNTED when it already is; a named point needs the name. */
  async unmount(point: MountPoint, name?: string): Promise<void> {
    const slot = resolveMount(point, name, true);
    const removed = slot.kind === "single" ? this.#single.delete(slot.point) : this.#named[slot.point].delete(slot.name!);
    if (!removed) {
      throw createError("NOT_MOUNTED", undefined, { path: slot.name === undefined || slot.kind === "single" ? slot.point : `${slot.point}.${slot.name}` });
    }
  }

  // --- cleanup -----------------------------------------------------------------------------

  /** Register a teardown; runs at cleanup() in reverse registration order. Returns its unregister. */
  registerCleanup(fn: () => unknown): () => void {
    if (typeof fn !== "function") {
      throw createError("INVALID_ARGUMENT", "registerCleanup() needs a function", { expected: "a function", given: fn });
    }
    if (this.#cleanup) throw createError("COORDINATOR_CLOSED", "cannot register a cleanup after cleanup()");
    const entry = () => fn();
    this.#cleanups.push(entry);
    return () => {
      const at = this.#cleanups.lastIndexOf(entry);
      if (at !== -1) this.#cleanups.splice(at, 1);
    };
  }

  /**
   * Run every cleanup, last registered first. Each runs even when an earlier one threw; the
   * errors are thrown once at the end as CLEANUP_FAILED (details.errors, in run order; cause an
   * AggregateError). A second call does nothing; a call while one runs waits for it.
   */
  cleanup(): Promise<void> {
    if (this.#cleanup) return this.#cleanup.catch(() => undefined);
    this.#cleanup = this.#runCleanups();
    return this.#cleanup;
  }

  async #runCleanups(): Promise<void> {
    const errors: unknown[] = [];
    for (const fn of this.#cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (error) {
        errors.push(error);
      }
    }
    this.#ephemeral = [];
    if (errors.length) {
      throw createError("CLEANUP_FAILED", `${errors.length} cleanup function(s) failed`, {
        errors,
        cause: new AggregateError(errors, "cleanup failures"),
      });
    }
  }

  // --- capabilities ------------------------------------------------------------------------

  /** Offer a cross-module service under a unique name. Returns its unregister. */
  registerCapability(name: string, value: unknown): () => void {
    if (typeof name !== "string" || name.length === 0) {
      throw createError("INVALID_ARGUMENT", "a capability name must be a non-empty string", { path: "name", given: name });
    }
    if (value === undefined) {
      throw createError("INVALID_ARGUMENT", "a capability needs a value", { path: name, expected: "any value but undefined", given: value });
    }
    if (this.#capabilities.has(name)) {
      throw createError("CAPABILITY_EXISTS", undefined, { path: name, hint: "call the unregister that registerCapability returned first" });
    }
    this.#capabilities.set(name, value);
    return () => {
      if (this.#capabilities.get(name) === value) this.#capabilities.delete(name);
    };
  }

  getCapability<T = unknown>(name: string): T | undefined {
    return this.#capabilities.get(name) as T | undefined;
  }

  // --- hook results ------------------------------------------------------------------------

  /**
   * Apply what a hook (or a folded emit) asked for; see contracts/HOOKS.md, "Processing results".
   * In order: user messages are emitted as `user:message`; injections are added to the context
   * (ephemeral ones held for the next request, see takeEphemeralInjections; a stored system/developer
   * one outside session:start/resume/fork is marked `metadata.scope: "turn"`, a turn note that the
   * window cuts with its turn) with `context:include`;
   * `ask_user` is resolved through the "approval" capability.
   */
  async processHookResult(result: AnyHookResult, event: string, hookName: string): Promise<HookResultOutcome> {
    assertEventName(event);
    if (typeof hookName !== "string" || hookName.length === 0) {
      throw createError("INVALID_ARGUMENT", "processHookResult() needs the hook's name", { event, path: "hookName", given: hookName });
    }
    const r = validateAnyHookResult(result, { hook: hookName, event });
    const injections = injectionsOf(r, hookName);
    const host: InjectionHost = {
      hooks: this.hooks,
      maxInjectionBytes: this.maxInjectionBytes,
      maxInjectionTotalBytes: this.maxInjectionTotalBytes,
      context: () => this.get("context"),
      holdEphemeral: (message) => this.#ephemeral.push(message),
    };
    // Refuse before any side effect, so a refused result displays and stores nothing.
    if (injections.length) checkInjections(host, injections, event);

    const userMessages = r.userMessages ?? (r.user_message === undefined ? [] : [{ message: r.user_message, level: r.user_message_level ?? "info", hook: hookName }]);
    for (const m of userMessages) {
      await this.hooks.emit("user:message", { message: m.message, level: m.level, hook: m.hook, event });
    }

    const injected = await applyInjections(host, injections, event);

    let outcome: HookResultOutcome;
    if (r.action === "ask_user") outcome = await resolveAskUser(this, r, event, r.decidedBy ?? hookName);
    else if (r.action === "deny") outcome = { action: "deny", reason: r.reason ?? `denied by hook "${r.decidedBy ?? hookName}"` };
    else outcome = { action: r.action };
    if (injected.length) outcome.injected = injected;
    return outcome;
  }

  /** The ephemeral injections held for the next request, oldest first; the list is emptied. */
  takeEphemeralInjections(): Message[] {
    const taken = this.#ephemeral;
    this.#ephemeral = [];
    return taken;
  }
}
