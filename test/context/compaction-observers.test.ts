import { describe, expect, it } from "vitest";
import { HookBus } from "../../core/hooks/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { assistant, openaiGroup, system, user } from "../../modules/strategies/test/helpers.js";

const big = Array.from({ length: 400 }, (_, i) => `v${i * 31}`).join(" ");
// These tests are about compaction: spilling (on by default) would shrink the big result below the budget instead.
const history = () => [system("rules"), user("q1"), ...openaiGroup("g1", big), assistant("a1"), user("q2"), assistant("a2")];

/** Lets every queued promise job and timer-free macrotask run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("compaction events are observed, never waited on", () => {
  it("a context:pre_compact / post_compact handler that never settles does not hold the window", async () => {
    const hooks = new HookBus({ timeoutMs: 600_000 });
    let calls = 0;
    const pending: (() => void)[] = [];
    const hang = () => {
      calls++;
      return new Promise<void>((resolve) => void pending.push(resolve));
    };
    hooks.register("context:pre_compact", hang);
    hooks.register("context:post_compact", hang);
    const context = new HistoryContextManager({ moduleName: "context-simple", options: { spill: false }, hooks });
    await context.setMessages(history());
    let window: unknown[] | undefined;
    const request = context.getMessagesForRequest(300).then((w) => (window = w));
    for (let i = 0; i < 10 && window === undefined; i++) await settle();
    expect(calls).toBe(2); // both events were emitted (this window compacted) …
    expect(window, "the window waited on a compaction handler").toBeDefined(); // … and not awaited
    pending.forEach((release) => release());
    await request;
  });

  it("a throwing compaction handler is still reported as hook:error, and the window is returned", async () => {
    const hooks = new HookBus();
    const errors: { event: string; hook: string }[] = [];
    hooks.register("hook:error", (e) => void errors.push({ event: e.event, hook: e.hook }));
    hooks.register("context:post_compact", () => {
      throw new Error("observer broke");
    }, { name: "broken-observer" });
    const context = new HistoryContextManager({ moduleName: "context-simple", options: { spill: false }, hooks });
    await context.setMessages(history());
    const window = await context.getMessagesForRequest(300);
    expect(window.some((m) => m.role === "user")).toBe(true);
    await settle();
    expect(errors).toContainEqual({ event: "context:post_compact", hook: "broken-observer" });
  });
});
