/**
 * Type tests for the two kinds of events (contracts/event-kinds.ts), checked by `tsc --noEmit`:
 * a decision's handler may answer anything a HookResult says; a notification's handler observes,
 * so an answer that would steer it does not compile. Each `@ts-expect-error` is a promise that the
 * compiler rejects that line.
 */
import { expectTypeOf } from "vitest";
import { EVENT_KINDS, type DecisionEventName, type EventKind, type NotificationEventName } from "../../contracts/event-kinds.js";
import type { AmplifierEvents, StandardEvents } from "../../contracts/events.js";
import type { EventHandler, HookHandler, NotificationHandler } from "../../contracts/hook-bus.js";
import { Coordinator } from "../../core/coordinator.js";
import { HookBus } from "../../core/hooks/index.js";

declare module "../../contracts/events.js" {
  interface AmplifierEvents {
    "thirdparty:indexed": { documents: number };
  }
}

const bus = new HookBus();

// --- the table names every standard event, and only those, with a kind ------------------------
expectTypeOf<keyof typeof EVENT_KINDS>().toEqualTypeOf<keyof StandardEvents>();
expectTypeOf<(typeof EVENT_KINDS)[keyof typeof EVENT_KINDS]>().toEqualTypeOf<EventKind>();
expectTypeOf<"context:storage_degraded">().toMatchTypeOf<NotificationEventName>();
expectTypeOf<"context:post_compact">().toMatchTypeOf<NotificationEventName>();
expectTypeOf<"session:end">().toMatchTypeOf<NotificationEventName>();
expectTypeOf<"tool:pre">().toMatchTypeOf<DecisionEventName>();
expectTypeOf<"prompt:submit">().toMatchTypeOf<DecisionEventName>();
expectTypeOf<"provider:request">().toMatchTypeOf<DecisionEventName>();
// An augmented event is a decision: nothing its emitters relied on changes.
expectTypeOf<"thirdparty:indexed">().toMatchTypeOf<DecisionEventName>();
expectTypeOf<Extract<NotificationEventName, DecisionEventName>>().toBeNever();

// --- a notification's handler observes ----------------------------------------------------------
expectTypeOf<EventHandler<AmplifierEvents, "context:storage_degraded">>().toEqualTypeOf<
  NotificationHandler<AmplifierEvents["context:storage_degraded"], "context:storage_degraded">
>();
bus.register("context:storage_degraded", (data, context) => {
  expectTypeOf(data).toEqualTypeOf<AmplifierEvents["context:storage_degraded"]>();
  expectTypeOf(context.event).toEqualTypeOf<"context:storage_degraded">();
});
bus.register("context:post_compact", async () => undefined);
bus.register("session:end", () => ({ action: "continue" }));
bus.register("context:storage_fallback", () => ({ action: "continue", user_message: "history is in memory only", user_message_level: "warning" }));
// @ts-expect-error a notification cannot be denied: the storage already degraded
bus.register("context:storage_degraded", () => ({ action: "deny", reason: "no" }));
// @ts-expect-error nor denied asynchronously
bus.register("session:end", async () => ({ action: "deny" as const }));
// @ts-expect-error nor modified: the emitter never reads the data back
bus.register("context:post_compact", (data) => ({ action: "modify", data }));
// @ts-expect-error nor answered with a question to the user
bus.register("hook:error", () => ({ action: "ask_user", approval_prompt: "retry?" }));
// @ts-expect-error nor does it inject context (inject on a decision: prompt:submit, tool:post, …)
bus.register("context:include", () => ({ action: "inject_context", context_injection: "again" }));

// The coordinator's bus is typed the same way.
const coordinator = new Coordinator();
// @ts-expect-error the coordinator's bus refuses a notification's deny too
coordinator.hooks.register("module:mounted", () => ({ action: "deny" }));

// --- a decision's handler steers ----------------------------------------------------------------
expectTypeOf<EventHandler<AmplifierEvents, "tool:pre">>().toEqualTypeOf<HookHandler<AmplifierEvents["tool:pre"], "tool:pre">>();
bus.register("tool:pre", () => ({ action: "deny", reason: "rm -rf" }));
bus.register("prompt:submit", () => ({ action: "inject_context", context_injection: "house rules" }));
bus.register("provider:request", (data) => ({ action: "modify", data: { ...data, tokens: 0 } }));
bus.register("thirdparty:indexed", () => ({ action: "deny" }));

// One handler for several events: a notification handler only if every one is a notification.
for (const event of ["context:pre_compact", "context:post_compact"] as const) {
  // @ts-expect-error both are notifications
  bus.register(event, () => ({ action: "deny" }));
}
for (const event of ["tool:post", "context:post_compact"] as const) {
  bus.register(event, () => undefined);
}
