import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AmplifierEvents, Summarizer } from "../../contracts/index.js";
import { HookBus } from "../../core/hooks/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { registerModel } from "../../modules/tokens/index.js";

// $ per million: input 3, cached 0.3, cache write 3.75, output 15.
const MODEL = "spend-test-anthropic";
let undo: () => void;
beforeAll(() => {
  undo = registerModel(MODEL, { contextWindow: 200_000, maxOutputTokens: 8_000, encoding: "o200k_base", family: "anthropic", provider: "test", safetyFactor: 1, prices: { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, asOf: "2026-11-28", source: "test" } });
});
afterAll(() => undo());

const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `w${(i * 7 + seed) % 997}`).join(" ");
const answer = { role: "assistant" as const, content: "ok" };

describe("spend: conversation, compaction and cache writes apart", () => {
  it("splits the answers, the summarizer's calls and the provider's compaction, by hand", async () => {
    const hooks = new HookBus();
    const spends: AmplifierEvents["context:spend"][] = [];
    const calibrations: unknown[] = [];
    hooks.on("context:spend", (p) => void spends.push(p));
    hooks.on("context:calibration", (p) => void calibrations.push(p));
    // A summarizer whose model call is billed on the same bus (as a provider summarizer's is).
    const summarizer: Summarizer = {
      name: "billed-fake",
      async summarize() {
        await hooks.emit("provider:response", { provider: "test", model: MODEL, message: answer, usage: { inputTokens: 4_000, outputTokens: 300 } });
        return "summary of the older turns";
      },
    };
    const context = new HistoryContextManager({
      moduleName: "context-simple",
      options: { spill: false, model: MODEL, strategies: [{ use: "summarization", recentTokenBudget: 400, minOldTokens: 50, summaryMaxTokens: 200 }] },
      hooks,
      summarizer,
    });
    for (let t = 0; t < 12; t++) {
      await context.addMessage({ role: "user", content: words(60, t) });
      await context.addMessage({ role: "assistant", content: words(60, t + 300) });
    }
    await context.getMessagesForRequest(50_000); // the summarization strategy calls the summarizer: one bill
    expect(spends.filter((s) => s.kind === "summarizer")).toHaveLength(1);
    expect(calibrations).toHaveLength(0); // a summarizer's bill does not settle the window's calibration
    // The conversation's answer: 10,000 in (6,000 read, 2,000 written), 500 out.
    await hooks.emit("provider:response", { provider: "test", model: MODEL, message: answer, usage: { inputTokens: 10_000, cacheReadTokens: 6_000, cacheWriteTokens: 2_000, outputTokens: 500 } });
    expect(calibrations).toHaveLength(1);
    // An answer carrying the provider's compaction (60,000 in, 900 out) beside 1,000 in / 100 out.
    await hooks.emit("provider:response", { provider: "test", model: MODEL, message: answer, usage: { inputTokens: 1_000, outputTokens: 100, compaction: { iterations: 1, inputTokens: 60_000, outputTokens: 900 } } });

    const b = context.spend.breakdown;
    // conversation: (2,000 + 1,000) × 3 + 6,000 × 0.3 + (500 + 100) × 15 = 9,000 + 1,800 + 9,000 = 19,800 µ$
    expect(b.conversation).toMatchObject({ calls: 2, inputTokens: 9_000, cacheReadTokens: 6_000, outputTokens: 600 });
    expect(b.conversation.usd).toBeCloseTo(0.0198, 12);
    // compaction: summarizer 4,000 × 3 + 300 × 15 = 16,500; provider 60,000 × 3 + 900 × 15 = 193,500 → 210,000 µ$
    expect(b.compaction).toMatchObject({ summarizerCalls: 1, providerCompactions: 1, inputTokens: 64_000, outputTokens: 1_200 });
    expect(b.compaction.usd).toBeCloseTo(0.21, 12);
    // cache writes: 2,000 × 3.75 = 7,500 µ$
    expect(b.cacheWrites).toEqual({ tokens: 2_000, usd: expect.closeTo(0.0075, 12) });
    expect(b.totalUsd).toBeCloseTo(0.0198 + 0.21 + 0.0075, 12);
    expect(b.totalUsd).toBeCloseTo(context.spend.totalUsd, 12); // a partition of the same bills
    expect(spends.at(-1)!.session.totalUsd).toBeCloseTo(b.totalUsd, 12);
    expect(spends.map((s) => s.kind)).toEqual(["summarizer", "conversation", "conversation"]);
  });

  it("an unpriced model's bill counts tokens, no USD", async () => {
    const context = new HistoryContextManager({ moduleName: "context-simple", options: { spill: false } });
    await context.recordUsage({ inputTokens: 100, outputTokens: 10, cacheWriteTokens: 20 }, { model: "unpriced-test-model" });
    expect(context.spend.breakdown).toMatchObject({ conversation: { calls: 1, inputTokens: 80, outputTokens: 10, usd: 0 }, cacheWrites: { tokens: 20, usd: 0 }, unpricedCalls: 1, totalUsd: 0 });
  });
});
