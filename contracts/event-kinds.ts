import type { AmplifierEventName, StandardEvents } from "./events.js";

/**
 * What a handler of an event may answer (contracts/HOOKS.md, "Decisions and notifications"):
 *
 * | kind         | the emitter…                                      | a handler may return                         |
 * |--------------|---------------------------------------------------|----------------------------------------------|
 * | decision     | is about to act and applies the folded answer      | any HookResult: deny, modify, ask_user, inject_context, continue |
 * | notification | reports what already happened; nothing to steer    | nothing, or `continue` (with a user_message / suppress_output) |
 *
 * At run time a notification handler's other answer is reported as `hook:error`
 * (INVALID_HOOK_RESULT) and ignored, and a failure of a fail-closed notification handler is
 * reported but never becomes a deny: a notification's fold is always `continue`.
 */
export type EventKind = "decision" | "notification";

/**
 * The kind of every standard event. A `Record` over the standard names, so a standard event added
 * without a kind fails to compile. Events added by augmentation are decisions (no behaviour of
 * theirs changes); a third party wanting observe-only semantics uses `hooks.on`.
 */
export const EVENT_KINDS = Object.freeze({
  "session:start": "decision",
  "session:end": "notification",
  "session:resume": "decision",
  "session:fork": "decision",

  "prompt:submit": "decision",
  "prompt:complete": "decision",

  "plan:start": "decision",
  "plan:end": "notification",

  "execution:start": "decision",
  "execution:end": "notification",
  "orchestrator:complete": "notification",

  "provider:request": "decision",
  "provider:response": "decision",
  "provider:error": "notification",
  "provider:usage_invalid": "notification",

  "content_block:start": "notification",
  "content_block:delta": "notification",
  "content_block:end": "notification",
  "thinking:delta": "notification",
  "thinking:final": "notification",

  "delegation:request": "decision",
  "delegation:response": "decision",

  "tool:pre": "decision",
  "tool:post": "decision",
  "tool:error": "decision",

  "context:pre_compact": "notification",
  "context:post_compact": "notification",
  "context:spend": "notification",
  "context:strategy_failed": "notification",
  "context:summary_failed": "notification",
  "context:summary_prepared": "notification",
  "context:summary_rejected": "notification",
  "context:summary_swapped": "notification",
  "context:summary_check": "decision",
  "context:include": "notification",
  "context:storage_fallback": "notification",
  "context:storage_degraded": "notification",
  "context:storage_restored": "notification",
  "context:storage_recovered": "notification",
  "context:message_added": "notification",
  "context:spill": "notification",
  "context:orphan_tool_result": "notification",
  "context:calibration": "notification",

  "user:message": "notification",
  "user:notification": "notification",

  "artifact:write": "notification",
  "artifact:read": "notification",
  "policy:violation": "notification",
  "approval:required": "notification",
  "approval:granted": "notification",
  "approval:denied": "notification",

  "cancel:requested": "decision",
  "cancel:completed": "notification",

  "hook:error": "notification",
  "module:mount_failed": "notification",
  "module:mounted": "notification",
  "module:unmounted": "notification",
} as const satisfies Readonly<Record<keyof StandardEvents, EventKind>>);

type KindTable = typeof EVENT_KINDS;

/** The standard events whose handlers may only observe. */
export type NotificationEventName = { [K in keyof KindTable]: KindTable[K] extends "notification" ? K : never }[keyof KindTable];

/** Every event whose handlers may steer: the standard decisions and every augmented event. */
export type DecisionEventName = Exclude<AmplifierEventName, NotificationEventName>;

/** Whether `event` is a standard notification (the bus checks this once, when a handler registers). */
export function isNotificationEvent(event: string): boolean {
  return Object.hasOwn(EVENT_KINDS, event) && EVENT_KINDS[event as keyof KindTable] === "notification";
}
