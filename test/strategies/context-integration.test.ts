import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { HookBus } from "../../core/hooks/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { strategyRegistry } from "../../modules/strategies/registry.js";
import { defineStrategy } from "../../contracts/strategy-definition.js";
import { assistant, openaiGroup, system, user } from "../../modules/strategies/test/helpers.js";

const big = Array.from({ length: 400 }, (_, i) => `v${i * 31}`).join(" ");
const history = () => [system("rules"), user("q1"), ...openaiGroup("g1", big), assistant("a1"), user("q2"), ...openaiGroup("g2", "short"), assistant("a2")];
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

function manager(strategies: unknown[], hooks?: HookBus) {
  return new HistoryContextManager({ moduleName: "context-simple", options: { strategies: strategies as never }, ...(hooks ? { hooks } : {}) });
}

describe("context modules with config strategies", () => {
  it("default pipeline = [] : the window is the assembler's alone", async () => {
    const plain = manager([]);
    expect(plain.pipeline.isEmpty).toBe(true);
    await plain.setMessages(history());
    const window = await plain.getMessagesForRequest(100_000);
    expect(window.map((m) => m.metadata?.id)).toEqual((await plain.getMessages()).map((m) => m.metadata?.id));
    expect(plain.explainLastWindow()?.strategies).toEqual(["window"]);
  });

  it("rejects bad strategy config when the module is created", () => {
    expect(() => manager([{ use: "sliding-window", max_messages: 3 }])).toThrow(/max_messages/);
    expect(() => manager([{ use: "slidingwindow" }])).toThrowError(expect.objectContaining({ code: "UNKNOWN_STRATEGY" }));
  });

  it("explain: each stored message kept / truncated / dropped, by which strategy and why", async () => {
    const context = manager([{ use: "tool-result-compaction", maxChars: 100 }, { use: "selective-tool-call", keepRecentGroups: 1, targetRatio: 1 }]);
    await context.setMessages(history());
    await context.getMessagesForRequest(100_000, undefined, { explain: true });
    const explanation = context.explainLastWindow()?.explanation ?? [];
    const by = Object.fromEntries(explanation.map((e) => [e.id, [e.decision, e.strategy]]));
    expect(explanation).toHaveLength(history().length);
    expect(by["call-g1"]).toEqual(["dropped", "selective-tool-call"]);
    expect(by["res-g1-0"]).toEqual(["dropped", "selective-tool-call"]);
    expect(by["res-g2-0"]).toEqual(["kept", "window"]);
    expect(explanation.every((e) => e.reason.length > 0)).toBe(true);
    expect(context.explainLastWindow()?.strategies).toEqual(["tool-result-compaction", "selective-tool-call", "window"]);
  });

  it("explain names the strategy that truncated a result", async () => {
    const context = manager([{ use: "tool-result-compaction", maxChars: 100 }]);
    await context.setMessages(history());
    await context.getMessagesForRequest(100_000, undefined, { explain: true });
    const entry = context.explainLastWindow()?.explanation?.find((e) => e.id === "res-g1-0");
    expect(entry).toMatchObject({ decision: "truncated", strategy: "tool-result-compaction" });
  });

  it("post_compact lists the strategies that changed something, then window", async () => {
    const hooks = new HookBus();
    const seen: Record<string, unknown>[] = [];
    hooks.register("context:post_compact", (d) => void seen.push(d as unknown as Record<string, unknown>));
    const context = manager([{ use: "tool-result-compaction", maxChars: 100 }, { use: "sliding-window", maxMessages: 50 }], hooks);
    await context.setMessages(history());
    await context.getMessagesForRequest(100_000);
    expect(seen[0]).toMatchObject({ strategies: ["tool-result-compaction", "window"], truncated: 1, removed: 0, summarized: 0 });
  });

  it("with nobody listening the compaction events are not built; a listener added later gets exact figures", async () => {
    const { getTokenCounter } = await import("../../modules/tokens/index.js");
    const counter = getTokenCounter("gpt-4o");
    const hooks = new HookBus();
    const emitted = vi.spyOn(hooks, "emit");
    const context = manager([{ use: "tool-result-compaction", maxChars: 100 }], hooks);
    await context.setMessages(history());
    await context.getMessagesForRequest(100_000);
    // Building them would count every stored original the window does not hold (the long result's).
    expect(emitted.mock.calls.map(([event]) => event)).not.toContain("context:pre_compact");
    expect(emitted.mock.calls.map(([event]) => event)).not.toContain("context:post_compact");
    // A wildcard observer is a listener too: the events are built again, with the whole history's total.
    const pre: { messageCount: number; tokens: number }[] = [];
    hooks.on("*", (event, d) => void (event === "context:pre_compact" && pre.push(d as never)));
    await context.addMessage(user("q3"));
    await context.getMessagesForRequest(100_000);
    const now = await context.getMessages();
    expect(pre.at(-1)).toMatchObject({ messageCount: now.length, tokens: counter.countRequest(now) });
    emitted.mockRestore();
  });

  it("pre_compact / post_compact figures stay exact across appends, setMessages and clear (kept incrementally)", async () => {
    const { getTokenCounter } = await import("../../modules/tokens/index.js");
    const counter = getTokenCounter("gpt-4o");
    const hooks = new HookBus();
    const pre: { messageCount: number; tokens: number }[] = [];
    const post: { removed: number }[] = [];
    hooks.register("context:pre_compact", (d) => void pre.push(d as never));
    hooks.register("context:post_compact", (d) => void post.push(d as never));
    const context = manager([{ use: "tool-result-compaction", maxChars: 100 }, { use: "selective-tool-call", keepRecentGroups: 1, targetRatio: 1 }], hooks);
    const check = async () => {
      await context.getMessagesForRequest(100_000);
      const stored = await context.getMessages();
      expect(pre.at(-1)).toMatchObject({ messageCount: stored.length, tokens: counter.countRequest(stored) });
      return post.at(-1)!;
    };
    await context.setMessages(history());
    expect((await check()).removed).toBe(2); // the old group g1: call + result
    await context.addMessage(user("q3"));
    await context.addMessage(assistant("a3"));
    expect((await check()).removed).toBe(2);
    await context.setMessages([system("rules"), user("fresh"), ...openaiGroup("g9", big), assistant("done")]);
    expect((await check()).removed).toBe(0);
    await context.clear();
    await context.setMessages(history().slice(0, 4));
    await check();
  });

  it("a strategy that throws is skipped, reported as context:strategy_failed, and the request succeeds", async () => {
    cleanups.push(
      strategyRegistry.register(
        defineStrategy({ name: "test-boom", description: "throws", optionsSchema: z.object({}).strict(), create: () => ({ name: "test-boom", compact: () => { throw new Error("kaboom"); } }) }),
      ),
    );
    const hooks = new HookBus();
    const failures: unknown[] = [];
    hooks.register("context:strategy_failed", (d) => void failures.push(d));
    const context = manager([{ use: "test-boom" }, { use: "sliding-window", maxMessages: 2, targetRatio: 1 }], hooks);
    await context.setMessages(history());
    const window = await context.getMessagesForRequest(100_000);
    expect(failures).toEqual([{ strategy: "test-boom", index: 0, error: "kaboom" }]);
    expect(window.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
  });

  it("consecutive windows share a prefix with the seed pipeline (the assembler is reused while the output grows)", async () => {
    const context = manager([{ use: "tool-result-compaction" }, { use: "selective-tool-call", keepRecentGroups: 10 }, { use: "sliding-window", maxMessages: 40 }]);
    await context.addMessage(system("rules"));
    let previous: string[] = [];
    let shared = 0;
    for (let turn = 0; turn < 40; turn++) {
      await context.addMessage(user(`q${turn}`));
      for (const m of openaiGroup(`t${turn}`, big)) await context.addMessage(m);
      await context.addMessage(assistant(`a${turn}`));
      const ids = (await context.getMessagesForRequest(100_000)).map((m) => String(m.metadata?.id));
      if (previous.length && ids.slice(0, previous.length).join() === previous.join()) shared++;
      previous = ids;
    }
    // Breaks come only from steps: selective-tool-call every 10 − 7 = 3 new groups past 10, and
    // sliding-window's jumps; a plain (targetRatio 1) pipeline breaks at every turn past the limits.
    expect(shared).toBeGreaterThanOrEqual(20);
  });
});
