import type { Emitter } from "mitt";
import mittImport from "mitt";
import type { AmplifierEvents } from "@amplifier-ts/contracts";
import type {
  EventHandler,
  EventName,
  HookBusContract,
  HookHandler,
  HookRegistration,
  HookRegistrationOptions,
  Observer,
  PayloadlessEventName,
  Unregister,
  WildcardObserver,
} from "@amplifier-ts/contracts";
import type { FoldedHookResult } from "@amplifier-ts/contracts";
import { createError, describeValue, isNotificationEvent, type AmplifierError } from "@amplifier-ts/contracts";
import { assertEventName } from "./event-name.js";
import { finishFold, foldResult, startFold } from "./fold.js";
import { parseRegistrationOptions, parseBusOptions, type HookBusOptions } from "./options.js";
import { runHandler, type HandlerEntry } from "./run-handler.js";

export type { HookBusOptions } from "./options.js";

// mitt ships CommonJS-flavoured typings, so under NodeNext its default import is typed as the
// module namespace; at run time (ESM build) it is the factory itself. Accept either.
type MittFactory = <T extends Record<string | symbol, unknown>>() => Emitter<T>;
const mitt = ((mittImport as unknown as { default?: MittFactory }).default ?? mittImport) as unknown as MittFactory;

// `any` only so both observer shapes (data) and (event, data) fit the overloads' implementation.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyObserver = (...args: any[]) => unknown;

/**
 * The typed hook bus. Two channels:
 *
 * - `register` / `emit`: ordered, awaited handlers whose results fold into one HookResult
 *   (contracts/HOOKS.md, "Fold"). Failures are reported as `hook:error` and skipped, or turned
 *   into a deny for fail-closed handlers.
 * - `on` / `off`: mitt observers, called synchronously at the start of every emit with the data as
 *   emitted; fire-and-forget, they cannot change the outcome; a throwing one is reported.
 *
 * No global state: every coordinator owns its bus.
 */
export class HookBus<E extends object = AmplifierEvents> implements HookBusContract<E> {
  /** Default handler timeout in ms. */
  readonly timeoutMs: number;
  readonly #onUnreportedError: (error: AmplifierError) => void;
  /** Per event, kept sorted by (priority, seq); replaced, never mutated, so a dispatch's copy is stable. */
  readonly #handlers = new Map<string, readonly HandlerEntry[]>();
  readonly #observers = mitt<Record<string, unknown>>();
  /** The wrapper mitt holds for each observer, so `off(event, observer)` finds it. */
  readonly #wrappers = new Map<string, Map<AnyObserver, AnyObserver[]>>();
  #seq = 0;

  constructor(options: HookBusOptions = {}) {
    const parsed = parseBusOptions(options);
    this.timeoutMs = parsed.timeoutMs;
    this.#onUnreportedError = parsed.onUnreportedError;
  }

  register<K extends EventName<E>>(event: K, handler: EventHandler<E, K>, options: HookRegistrationOptions = {}): Unregister {
    assertEventName(event);
    if (typeof handler !== "function") {
      throw createError("INVALID_ARGUMENT", "register() needs a handler function", { event, expected: "a function", given: handler });
    }
    const opts = parseRegistrationOptions(options, event);
    const seq = this.#seq++;
    const entry: HandlerEntry = {
      event,
      handler: handler as HookHandler<unknown, string>,
      name: opts.name ?? (handler.name || `${event}#${seq}`),
      priority: opts.priority ?? 0,
      failClosed: opts.failClosed ?? false,
      timeoutMs: opts.timeoutMs ?? this.timeoutMs,
      notification: isNotificationEvent(event),
      seq,
    };
    const list = [...(this.#handlers.get(event) ?? []), entry].sort(byDispatchOrder);
    this.#handlers.set(event, list);
    return () => {
      const current = this.#handlers.get(event);
      if (!current?.includes(entry)) return;
      const rest = current.filter((e) => e !== entry);
      if (rest.length) this.#handlers.set(event, rest);
      else this.#handlers.delete(event);
    };
  }

  emit<K extends EventName<E>>(event: K, data: E[K]): Promise<FoldedHookResult<E[K]>>;
  emit<K extends PayloadlessEventName<E>>(event: K): Promise<FoldedHookResult<E[K]>>;
  async emit(event: string, data?: unknown): Promise<FoldedHookResult<unknown>> {
    assertEventName(event);
    return this.#dispatch(event, data);
  }

  on<K extends EventName<E>>(event: K, observer: Observer<E[K]>): Unregister;
  on(event: "*", observer: WildcardObserver<E>): Unregister;
  on(event: string, observer: AnyObserver): Unregister {
    assertEventName(event, { allowWildcard: true });
    if (typeof observer !== "function") {
      throw createError("INVALID_ARGUMENT", "on() needs an observer function", { event, expected: "a function", given: observer });
    }
    const wrapper = this.#wrapObserver(event, observer);
    const byObserver = this.#wrappers.get(event) ?? new Map<AnyObserver, AnyObserver[]>();
    this.#wrappers.set(event, byObserver);
    byObserver.set(observer, [...(byObserver.get(observer) ?? []), wrapper]);
    this.#observers.on(event, wrapper as (data: unknown) => void);
    return () => this.#removeWrapper(event, observer, wrapper);
  }

  off<K extends EventName<E>>(event: K, observer: Observer<E[K]>): void;
  off(event: "*", observer: WildcardObserver<E>): void;
  off(event: string, observer: AnyObserver): void {
    assertEventName(event, { allowWildcard: true });
    const first = this.#wrappers.get(event)?.get(observer)?.[0];
    if (first) this.#removeWrapper(event, observer, first);
  }

  listHandlers(event?: EventName<E>): HookRegistration[] {
    if (event !== undefined) assertEventName(event);
    const lists = event === undefined ? [...this.#handlers.values()] : [this.#handlers.get(event) ?? []];
    return lists.flat().map(({ event, name, priority, failClosed, timeoutMs }) => ({ event, name, priority, failClosed, timeoutMs }));
  }

  hasListeners(event: EventName<E>): boolean {
    assertEventName(event);
    if ((this.#handlers.get(event)?.length ?? 0) > 0) return true;
    const observers = this.#observers.all;
    return (observers.get(event)?.length ?? 0) > 0 || (observers.get("*")?.length ?? 0) > 0;
  }

  async #dispatch(event: string, data: unknown): Promise<FoldedHookResult<unknown>> {
    this.#observers.emit(event, data);
    const entries = this.#handlers.get(event) ?? [];
    const state = startFold(data);
    for (const entry of entries) {
      const outcome = await runHandler(entry, state.data);
      if (outcome.ok) {
        foldResult(state, outcome.result, entry.name);
      } else {
        await this.#report(event, entry.name, outcome.error, entry.failClosed);
        // A notification reports what already happened: there is nothing a deny could stop.
        if (entry.failClosed && !entry.notification) {
          foldResult(state, { action: "deny", reason: `hook "${entry.name}" failed closed: ${outcome.error.message}` }, entry.name);
        }
      }
      if (state.stopped) break;
    }
    return finishFold(state);
  }

  /** Tell `hook:error` handlers; a failure while dispatching hook:error itself goes to onUnreportedError (no loop). */
  async #report(event: string, hook: string, error: AmplifierError, failClosed: boolean): Promise<void> {
    if (event === "hook:error") {
      this.#onUnreportedError(error);
      return;
    }
    await this.#dispatch("hook:error", { event, hook, error, failClosed });
  }

  #wrapObserver(event: string, observer: AnyObserver): AnyObserver {
    const name = observer.name || "observer";
    return (...args: unknown[]) => {
      // For "*" observers the observed event is only known per call (mitt passes it first).
      const observed = event === "*" ? String(args[0]) : event;
      const fail = (cause: unknown): void => {
        const message = cause instanceof Error ? cause.message : describeValue(cause);
        const error = createError("HOOK_FAILED", `observer "${name}" threw: ${message}`, { hook: name, event: observed, cause });
        this.#report(observed, name, error, false).catch(this.#onUnreportedError);
      };
      try {
        const returned: unknown = observer(...args);
        if (returned instanceof Promise) returned.catch(fail);
      } catch (cause) {
        fail(cause);
      }
    };
  }

  #removeWrapper(event: string, observer: AnyObserver, wrapper: AnyObserver): void {
    const byObserver = this.#wrappers.get(event);
    const wrappers = byObserver?.get(observer);
    if (!byObserver || !wrappers?.includes(wrapper)) return;
    const rest = wrappers.filter((w) => w !== wrapper);
    if (rest.length) byObserver.set(observer, rest);
    else byObserver.delete(observer);
    this.#observers.off(event, wrapper as (data: unknown) => void);
  }
}

function byDispatchOrder(a: HandlerEntry, b: HandlerEntry): number {
  return a.priority - b.priority || a.seq - b.seq;
}
