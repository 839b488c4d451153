import { describe, expect, it } from "vitest";
import type { AmplifierEvents } from "../../../contracts/events.js";
import { EVENT_KINDS, isNotificationEvent } from "../../../contracts/event-kinds.js";
import { isAmplifierError } from "../../../contracts/errors.js";
import { HookBus } from "../../hooks/index.js";

/**
 * A notification's handlers may only observe (contracts/HOOKS.md, "Decisions and notifications").
 * The types refuse a steering answer (test/types/event-kinds.test-d.ts); these tests are the run-time
 * rule for JavaScript callers and casts: reported as hook:error (INVALID_HOOK_RESULT), ignored.
 */
const degraded: AmplifierEvents["context:storage_degraded"] = { reason: "fsync failed", store: "jsonl" };

function recordErrors(bus: HookBus): AmplifierEvents["hook:error"][] {
  const reports: AmplifierEvents["hook:error"][] = [];
  bus.register("hook:error", (report) => void reports.push(report));
  return reports;
}

/** A handler as plain JavaScript would register it: its type says nothing (the compiler is bypassed). */
const untyped = (answer: unknown): never => (() => answer) as never;

describe("a notification handler's answer", () => {
  it.each([
    ["deny", { action: "deny", reason: "no" }],
    ["modify", { action: "modify", data: { reason: "rewritten" } }],
    ["ask_user", { action: "ask_user", approval_prompt: "really?" }],
    ["inject_context", { action: "inject_context", context_injection: "note" }],
  ])("%s is reported as hook:error and ignored: the fold stays continue", async (action, answer) => {
    const bus = new HookBus();
    const reports = recordErrors(bus);
    const seen: string[] = [];
    bus.register("context:storage_degraded", untyped(answer), { name: "steerer" });
    bus.register("context:storage_degraded", (data) => void seen.push(data.reason), { name: "observer" });

    const result = await bus.emit("context:storage_degraded", degraded);

    expect(result).toEqual({ action: "continue", data: degraded, injections: [], userMessages: [] });
    expect(seen).toEqual(["fsync failed"]); // a deny did not stop the dispatch
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ event: "context:storage_degraded", hook: "steerer" });
    expect(isAmplifierError(reports[0]!.error, "INVALID_HOOK_RESULT")).toBe(true);
    expect(reports[0]!.error.message).toContain(`answered ${action} to the notification context:storage_degraded`);
  });

  it("continue with a user message is folded as on any event", async () => {
    const bus = new HookBus();
    const reports = recordErrors(bus);
    bus.register("context:storage_degraded", () => ({ action: "continue", user_message: "history may be lost", user_message_level: "warning" }), { name: "notice" });
    const result = await bus.emit("context:storage_degraded", degraded);
    expect(reports).toEqual([]);
    expect(result.userMessages).toEqual([{ message: "history may be lost", level: "warning", hook: "notice" }]);
  });

  it("of a fail-closed handler that throws is reported and never becomes a deny", async () => {
    const bus = new HookBus();
    const reports = recordErrors(bus);
    bus.register("session:end", () => { throw new Error("log sink down"); }, { name: "strict", failClosed: true });
    const result = await bus.emit("session:end", { sessionId: "s1" });
    expect(result.action).toBe("continue");
    expect(reports).toHaveLength(1);
    expect(isAmplifierError(reports[0]!.error, "HOOK_FAILED")).toBe(true);
  });

  it("to a decision keeps its meaning: a deny stops a tool call", async () => {
    const bus = new HookBus();
    const reports = recordErrors(bus);
    bus.register("tool:pre", () => ({ action: "deny", reason: "rm -rf" }));
    expect(await bus.emit("tool:pre", { tool: "bash", callId: "c1", input: {} })).toMatchObject({ action: "deny", reason: "rm -rf" });
    expect(reports).toEqual([]);
  });
});

describe("EVENT_KINDS", () => {
  it("classifies the events the issue names, and augmented names as decisions", () => {
    for (const event of ["context:storage_degraded", "context:post_compact", "session:end"]) expect(isNotificationEvent(event)).toBe(true);
    for (const event of ["prompt:submit", "tool:pre", "provider:request", "thirdparty:recall", "toString"]) expect(isNotificationEvent(event)).toBe(false);
    expect(Object.isFrozen(EVENT_KINDS)).toBe(true);
  });
});
