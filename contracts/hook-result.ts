import type { HookAction, HookResult } from "./generated/hook-result.js";

export type { HookAction, HookResult };

/**
 * Precedence of the folded action: when several handlers answered, the highest rank wins.
 *
 * | rank | action         |
 * |------|----------------|
 * | 4    | deny           |
 * | 3    | ask_user       |
 * | 2    | inject_context |
 * | 1    | modify         |
 * | 0    | continue       |
 *
 * A `Record<HookAction, number>`, so adding an action to the schema without ranking it here
 * fails to compile.
 */
export const HOOK_ACTION_PRECEDENCE: Readonly<Record<HookAction, number>> = Object.freeze({
  continue: 0,
  modify: 1,
  inject_context: 2,
  ask_user: 3,
  deny: 4,
});

/** The action that wins when `a` and `b` meet in a fold. */
export function strongerAction(a: HookAction, b: HookAction): HookAction {
  return HOOK_ACTION_PRECEDENCE[b] > HOOK_ACTION_PRECEDENCE[a] ? b : a;
}

/** Role of an injected message; the schema's default is "system". */
export type InjectionRole = NonNullable<HookResult["context_injection_role"]>;
export type UserMessageLevel = NonNullable<HookResult["user_message_level"]>;

/**
 * What a handler returns: a HookResult whose `data` (for `modify`) is typed as the event's payload.
 * Returning nothing (`undefined`) means `continue`.
 */
export type HookHandlerResult<P = unknown> = Omit<HookResult, "data"> & { data?: P };

/**
 * What a notification's handler returns (contracts/event-kinds.ts): nothing, or `continue`, which
 * may still carry a message for the user's screen or ask to suppress output. No deny, modify,
 * ask_user or inject_context: a notification reports what already happened.
 */
export type NotificationHandlerResult = Pick<HookResult, "reason" | "user_message" | "user_message_level" | "suppress_output"> & { action: "continue" };

/** One `inject_context` answer, as collected by the fold (in dispatch order). */
export interface HookInjection {
  content: string;
  role: InjectionRole;
  ephemeral: boolean;
  /** The handler that asked for it. */
  hook: string;
}

/** One `user_message`, as collected by the fold (in dispatch order, any action may carry one). */
export interface HookUserMessage {
  message: string;
  level: UserMessageLevel;
  hook: string;
}

/**
 * The one result `await hooks.emit(event, data)` returns. See contracts/HOOKS.md, "Fold".
 *
 * - `action`: the strongest action any handler returned (HOOK_ACTION_PRECEDENCE).
 * - `data`: the event data after every `modify` that ran (the emitted data when none did).
 * - `injections` / `userMessages`: every one, in dispatch order; authoritative.
 * - `context_injection` / `context_injection_role` / `ephemeral`: a summary for code that reads
 *   single fields: the texts joined by a blank line, the first injection's role, and `ephemeral`
 *   true only when every injection is. Present only when there were injections.
 * - `user_message` / `user_message_level`: the first user message, when any.
 * - `reason` and the `approval_*` fields: from the result that decided the action.
 * - `decidedBy`: the handler whose result set `action` (absent for `continue`).
 * - `suppress_output`: true when any handler asked for it.
 */
export interface FoldedHookResult<P = unknown> extends Omit<HookResult, "data"> {
  data: P;
  injections: HookInjection[];
  userMessages: HookUserMessage[];
  decidedBy?: string;
}

/** What `coordinator.processHookResult` accepts: a handler's result or a folded one. */
export type AnyHookResult = HookHandlerResult<unknown> & {
  injections?: readonly HookInjection[];
  userMessages?: readonly HookUserMessage[];
  decidedBy?: string;
};
