import type { NotificationEventName } from "./event-kinds.js";
import type { AmplifierEvents } from "./events.js";
import type { FoldedHookResult, HookHandlerResult, NotificationHandlerResult } from "./hook-result.js";

/** String keys of an event map. */
export type EventName<E> = Extract<keyof E, string>;

/** Event names whose payload may be left out (`undefined` is part of the payload type). */
export type PayloadlessEventName<E> = { [K in EventName<E>]: undefined extends E[K] ? K : never }[EventName<E>];

/** The teardown every registration returns. Calling it twice is harmless. */
export type Unregister = () => void;

/** Passed to every handler next to the data. */
export interface HookContext<K extends string = string> {
  event: K;
  /** The handler's registered name. */
  hook: string;
  /** Aborted when the handler's timeout passes: stop work, the bus has moved on. */
  signal: AbortSignal;
}

/** An ordered, result-returning handler (`register`). Returning nothing means `continue`. */
export type HookHandler<P = unknown, K extends string = string> = (
  data: P,
  context: HookContext<K>,
) => HookHandlerResult<P> | undefined | void | Promise<HookHandlerResult<P> | undefined | void>;

/** A handler of a notification (contracts/event-kinds.ts): it observes; it returns nothing or `continue`. */
export type NotificationHandler<P = unknown, K extends string = string> = (
  data: P,
  context: HookContext<K>,
) => NotificationHandlerResult | undefined | void | Promise<NotificationHandlerResult | undefined | void>;

/**
 * The handler `register(event, …)` accepts: a NotificationHandler for a standard notification,
 * a HookHandler for every decision (augmented events included). Rollup's hook kinds, in the
 * types: a notification handler that returns `{ action: "deny" }` does not compile. Not
 * distributive: one handler for a union of events is a notification handler only when every
 * event of the union is a notification (the bus still refuses a notification's deny at run time).
 */
export type EventHandler<E, K extends EventName<E>> = [K] extends [NotificationEventName] ? NotificationHandler<E[K], K> : HookHandler<E[K], K>;

export interface HookRegistrationOptions {
  /** Lower runs first; ties run in registration order. Default 0. */
  priority?: number;
  /** Shown in hook:error and results. Default: the function's name, else `<event>#<n>`. */
  name?: string;
  /** A throw, timeout or invalid result becomes a `deny` with the reason instead of being skipped (decisions only: a notification is never denied). */
  failClosed?: boolean;
  /** Milliseconds the handler may take; default the bus's (30 000). `Infinity` disables it. */
  timeoutMs?: number;
}

/** A fire-and-forget observer (`on`): sees every emit, cannot influence it. */
export type Observer<P = unknown> = (data: P) => void;
/** An observer of every event (`on("*", …)`). */
export type WildcardObserver<E = AmplifierEvents> = (event: EventName<E>, data: E[EventName<E>]) => void;

/** Registered handler, as listed by `listHandlers` (in dispatch order). */
export interface HookRegistration {
  event: string;
  name: string;
  priority: number;
  failClosed: boolean;
  timeoutMs: number;
}

/**
 * The hook bus every module sees as `coordinator.hooks`. See contracts/HOOKS.md.
 * Generic over the event map so payloads are checked per event name.
 */
export interface HookBusContract<E extends object = AmplifierEvents> {
  register<K extends EventName<E>>(event: K, handler: EventHandler<E, K>, options?: HookRegistrationOptions): Unregister;

  /** Runs the ordered handlers and returns their folded result. Payload-less events need no data. */
  emit<K extends EventName<E>>(event: K, data: E[K]): Promise<FoldedHookResult<E[K]>>;
  emit<K extends PayloadlessEventName<E>>(event: K): Promise<FoldedHookResult<E[K]>>;

  on<K extends EventName<E>>(event: K, observer: Observer<E[K]>): Unregister;
  on(event: "*", observer: WildcardObserver<E>): Unregister;
  off<K extends EventName<E>>(event: K, observer: Observer<E[K]>): void;
  off(event: "*", observer: WildcardObserver<E>): void;

  listHandlers(event?: EventName<E>): HookRegistration[];

  /**
   * Whether emitting `event` now would reach anyone: a handler for it, an observer of it, or a
   * wildcard observer. Lets an emitter skip building a costly payload nobody reads. Optional:
   * callers treat a bus without it as always listened to.
   */
  hasListeners?(event: EventName<E>): boolean;
}
