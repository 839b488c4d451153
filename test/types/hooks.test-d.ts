/**
 * Type tests for the hook bus and the event map, checked by `tsc --noEmit`.
 * Each `@ts-expect-error` is a promise that the compiler rejects that line; if it ever compiles,
 * tsc fails on the unused directive.
 */
import { expectTypeOf } from "vitest";
import type { ContextManager } from "../../contracts/context-manager.js";
import type { CoordinatorContract } from "../../contracts/coordinator.js";
import type { AmplifierEventName, AmplifierEvents, ContextRepairReport } from "../../contracts/events.js";
import type { HookBusContract } from "../../contracts/hook-bus.js";
import type { FoldedHookResult } from "../../contracts/hook-result.js";
import type { Provider } from "../../contracts/provider.js";
import { Coordinator } from "../../core/coordinator.js";
import { HookBus } from "../../core/hooks/index.js";
import type { WindowRepairs } from "../../modules/window/window-report.js";

// A third party adds its own event by module augmentation (consumers write
// `declare module "amplifier-ts"`). Augmentations are program-wide, as they are for consumers: core
// must never hold an exhaustive table over AmplifierEventName, and this test keeps that honest.
declare module "../../contracts/events.js" {
  interface AmplifierEvents {
    "thirdparty:recall": { query: string; hits: number };
  }
}

const bus = new HookBus();

// --- payloads are checked per event name ------------------------------------------------------
void bus.emit("context:pre_compact", { messageCount: 10, tokens: 900, budget: 1000 });
// @ts-expect-error budget is missing
void bus.emit("context:pre_compact", { messageCount: 10, tokens: 900 });
// @ts-expect-error tokens must be a number
void bus.emit("context:pre_compact", { messageCount: 10, tokens: "900", budget: 1000 });
// @ts-expect-error the payload of context:include, not of context:pre_compact
void bus.emit("context:pre_compact", { source: "hook", content: "x", ephemeral: false });
// @ts-expect-error not an event of the map
void bus.emit("context:precompact", { messageCount: 1, tokens: 1, budget: 1 });

const compacted = { messageCount: 5, tokens: 700, removed: 3, truncated: 1, summarized: 0, strategies: ["sliding-window"], durationMs: 2 };
void bus.emit("context:post_compact", compacted);
// The repair report carries the counts and the placeholder flag the built-ins send (issue 25 item 15).
bus.on("context:post_compact", ({ repaired }) => {
  if (repaired === undefined) return;
  expectTypeOf(repaired.syntheticResults).toEqualTypeOf<number>();
  expectTypeOf(repaired.orphansDropped).toEqualTypeOf<number>();
  expectTypeOf(repaired.placeholder).toEqualTypeOf<boolean>();
  expectTypeOf(repaired.interruptedCalls).toEqualTypeOf<string[]>();
  expectTypeOf(repaired.orphanResults).toEqualTypeOf<string[]>();
});
// The window's report is the event's payload as is: the two shapes cannot drift apart.
expectTypeOf<WindowRepairs>().toMatchTypeOf<ContextRepairReport>();
expectTypeOf<ContextRepairReport>().toMatchTypeOf<WindowRepairs>();
void bus.emit("context:post_compact", {
  ...compacted,
  // @ts-expect-error a repair report names its counts and the placeholder flag, not only the ids
  repaired: { interruptedCalls: ["c1"], orphanResults: [] },
});
void bus.emit("context:include", { source: "hook", content: "x", ephemeral: true });
void bus.emit("hook:error", { event: "tool:pre", hook: "h", error: new Error("x"), failClosed: false });
void bus.emit("module:mount_failed", { module: "m", point: "tools", error: new Error("x"), optional: true });

// --- payload-less events need no argument; the others require one ------------------------------
void bus.emit("cancel:completed");
void bus.emit("plan:start");
void bus.emit("plan:start", { plan: "refactor" });
// @ts-expect-error tool:pre carries a payload
void bus.emit("tool:pre");

// --- handlers see the event's payload and return results typed by it --------------------------
bus.register("tool:pre", (data, context) => {
  expectTypeOf(data).toEqualTypeOf<AmplifierEvents["tool:pre"]>();
  expectTypeOf(context.event).toEqualTypeOf<"tool:pre">();
  expectTypeOf(context.signal).toEqualTypeOf<AbortSignal>();
  return { action: "modify", data: { ...data, input: {} } };
});
bus.register("tool:pre", async () => undefined);
bus.register("tool:pre", () => {});
// @ts-expect-error modify data must be the event's payload
bus.register("tool:pre", () => ({ action: "modify", data: { wrong: true } }));
// @ts-expect-error not a HookAction
bus.register("tool:pre", () => ({ action: "block" }));
// @ts-expect-error options are checked
bus.register("tool:pre", () => undefined, { priority: "high" });

// --- emit returns the folded result, its data typed by the event ------------------------------
expectTypeOf(bus.emit("prompt:submit", { prompt: "hi" })).resolves.toEqualTypeOf<FoldedHookResult<AmplifierEvents["prompt:submit"]>>();
expectTypeOf(bus.emit("tool:pre", { tool: "bash", callId: "1", input: {} }))
  .resolves.toHaveProperty("data")
  .toEqualTypeOf<AmplifierEvents["tool:pre"]>();

// --- observers --------------------------------------------------------------------------------
bus.on("user:message", (display) => {
  expectTypeOf(display.level).toEqualTypeOf<"info" | "warning" | "error">();
});
bus.on("*", (event, _data) => {
  expectTypeOf(event).toEqualTypeOf<AmplifierEventName>();
});
// @ts-expect-error observers of an unknown event
bus.on("tool:prepare", () => undefined);

// --- module augmentation: the bus types the new event like a standard one ---------------------
void bus.emit("thirdparty:recall", { query: "deadline", hits: 2 });
// @ts-expect-error hits must be a number
void bus.emit("thirdparty:recall", { query: "deadline", hits: "2" });
bus.register("thirdparty:recall", (data) => {
  expectTypeOf(data).toEqualTypeOf<{ query: string; hits: number }>();
});
expectTypeOf<"thirdparty:recall">().toExtend<AmplifierEventName>();
declare const coordinator: CoordinatorContract;
void coordinator.hooks.emit("thirdparty:recall", { query: "q", hits: 0 });

// --- a bus over a private event map -----------------------------------------------------------
interface PluginEvents {
  "plugin:ready": { version: string };
  "plugin:tick": undefined;
}
const pluginBus = new HookBus<PluginEvents>();
void pluginBus.emit("plugin:ready", { version: "1.0.0" });
void pluginBus.emit("plugin:tick");
// @ts-expect-error not in PluginEvents
void pluginBus.emit("tool:pre", { tool: "x", callId: "1", input: {} });
expectTypeOf(pluginBus).toExtend<HookBusContract<PluginEvents>>();

// --- the coordinator ------------------------------------------------------------------------
const c = new Coordinator();
expectTypeOf(c).toExtend<CoordinatorContract>();
expectTypeOf(c.hooks).toExtend<HookBusContract<AmplifierEvents>>();
expectTypeOf(c.get("context")).toEqualTypeOf<ContextManager | undefined>();
expectTypeOf(c.get("session", "context")).toEqualTypeOf<ContextManager | undefined>();
expectTypeOf(c.get("providers", "openai")).toEqualTypeOf<Provider | undefined>();
expectTypeOf(c.get("providers")).toEqualTypeOf<Readonly<Record<string, Provider>>>();
// @ts-expect-error not a mount point
void c.mount("hooks", {});
expectTypeOf(c.processHookResult).returns.resolves.toHaveProperty("action").toEqualTypeOf<"continue" | "deny" | "modify" | "inject_context">();
