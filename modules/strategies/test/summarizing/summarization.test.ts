import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Summarizer } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { propertyRuns, toolHistoryArbitrary } from "@amplifier-ts/testing";
import { HookBus } from "@amplifier-ts/core";
import { SUMMARY_HEADER, isSummaryMessage } from "../../summarizing/index.js";
import { createStrategy } from "../../registry.js";
import { anthropicGroup, assistant, contextFor, ids, openaiGroup, system, user } from "../helpers.js";
import { strategyOutputProblems } from "./output-checks.js";

const words = (n: number, tag = "w") => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");
const turn = (k: number): Message[] => [user(`Question ${k}: order ORD-${k} ${words(40)}`), assistant(`Answer ${k}. ${words(40)}`)];
const options = { use: "summarization", recentTokenBudget: 300, minOldTokens: 50, targetRatio: 1 };

function counting(): Summarizer & { calls: { n: number; previous?: string }[] } {
  const calls: { n: number; previous?: string }[] = [];
  return {
    name: "counting",
    calls,
    async summarize(messages, o) {
      calls.push({ n: messages.length, ...(o.previousSummary !== undefined ? { previous: o.previousSummary } : {}) });
      return `${o.previousSummary ? `${o.previousSummary} + ` : ""}${messages.length} messages`;
    },
  };
}

describe("summarization", () => {
  it("keeps recent turns up to recentTokenBudget and replaces everything older with ONE summary", async () => {
    const history = [system("s"), ...Array.from({ length: 8 }, (_, k) => turn(k)).flat()];
    const ctx = contextFor();
    const out = await createStrategy(options).compact(history, ctx);
    expect(out[0]).toBe(history[0]);
    expect(isSummaryMessage(out[1])).toBe(true);
    expect(out.filter(isSummaryMessage)).toHaveLength(1);
    expect(String(out[1]!.content).startsWith(SUMMARY_HEADER)).toBe(true);
    expect(out[1]!.content).toContain("ORD-0");
    const recent = out.slice(2);
    expect(recent[0]!.role).toBe("user");
    expect(ctx.counter.countMessages(recent)).toBeLessThanOrEqual(300);
    const covers = out[1]!.metadata!.summary!.covers;
    expect([...covers, ...ids(recent)]).toEqual(ids(history.slice(1)));
    expect(ctx.explain.entries.filter((e) => e.decision === "summarized").map((e) => e.messageId)).toEqual(covers);
  });

  it("leaves the history alone when it fits, or when the old part is below minOldTokens", async () => {
    const history = [user("q"), assistant("a"), ...turn(1)];
    expect(await createStrategy(options).compact(history, contextFor())).toEqual(history);
    const big = [user("hi"), ...turn(1), ...turn(2), ...turn(3)];
    expect(await createStrategy({ ...options, minOldTokens: 100_000 }).compact(big, contextFor())).toEqual(big);
  });

  it("updates a summary at the start of the old part instead of stacking a second one", async () => {
    const summarizer = counting();
    const ctx = { ...contextFor(), summarizer };
    const first = await createStrategy(options).compact([...Array.from({ length: 6 }, (_, k) => turn(k)).flat()], ctx);
    const summary = first[0]!;
    expect(isSummaryMessage(summary)).toBe(true);
    // The compacted history is stored back (setMessages) and grows; a new instance compacts it again.
    const grown = [...first, ...Array.from({ length: 5 }, (_, k) => turn(10 + k)).flat()];
    const second = await createStrategy(options).compact(grown, ctx);
    expect(second.filter(isSummaryMessage)).toHaveLength(1);
    expect(summarizer.calls[1]!.previous).toBe(`${summarizer.calls[0]!.n} messages`);
    const covers = second[0]!.metadata!.summary!.covers;
    expect(covers.slice(0, summary.metadata!.summary!.covers.length)).toEqual(summary.metadata!.summary!.covers);
    expect(covers).not.toContain(summary.metadata!.id);
  });

  it("calls the summarizer once for the same old part, and only for the new messages when it grows", async () => {
    const summarizer = counting();
    const ctx = { ...contextFor(), summarizer };
    const strategy = createStrategy({ ...options, targetRatio: 0.5 });
    const history: Message[] = [];
    const distinct = new Set<Message>();
    for (let k = 0; k < 30; k++) {
      history.push(user(`q${k} ORD-${k}`), assistant(`a${k} ${words(4)}`));
      const out = await strategy.compact(history, ctx);
      const summary = out.find(isSummaryMessage);
      if (summary) distinct.add(summary);
    }
    expect(distinct.size).toBeGreaterThan(1);
    expect(distinct.size).toBeLessThan(10);
    expect(summarizer.calls).toHaveLength(distinct.size);
    // Each later call summarises only the newly old messages, as an update of the previous summary.
    expect(summarizer.calls.slice(1).every((c) => c.previous !== undefined && c.n < summarizer.calls[0]!.n * 2)).toBe(true);
  });

  it("falls back to dropping when the summarizer fails, and says so in context:summary_failed and explain", async () => {
    const hooks = new HookBus();
    const events: unknown[] = [];
    hooks.on("context:summary_failed", (e) => events.push(e));
    const broken: Summarizer = { name: "broken", summarize: async () => { throw new Error("503 from the model"); } };
    const ctx = { ...contextFor(), summarizer: broken, hooks };
    const history = [system("s"), ...Array.from({ length: 8 }, (_, k) => turn(k)).flat()];
    const out = await createStrategy(options).compact(history, ctx);
    expect(out.some(isSummaryMessage)).toBe(false);
    expect(out[0]).toBe(history[0]);
    expect(out.length).toBeLessThan(history.length);
    expect(events).toEqual([expect.objectContaining({ strategy: "summarization", summarizer: "broken", reason: "503 from the model", code: "SUMMARIZER_FAILED" })]);
    expect(ctx.explain.entries.every((e) => e.decision === "dropped" && /summarizer failed/.test(e.reason))).toBe(true);
  });

  it("times out a hanging summarizer and drops instead", async () => {
    const hanging: Summarizer = { name: "hanging", summarize: () => new Promise(() => {}) };
    const history = Array.from({ length: 8 }, (_, k) => turn(k)).flat();
    const out = await createStrategy({ ...options, timeoutMs: 20 }).compact(history, { ...contextFor(), summarizer: hanging });
    expect(out.some(isSummaryMessage)).toBe(false);
    expect(out.length).toBeLessThan(history.length);
  });

  it("never summarises critical messages, instructions or half a tool group; the last turn stays", async () => {
    const pinned = user("pinned fact", { metadata: { id: "pin", critical: true } });
    const history = [system("s"), pinned, ...turn(1), ...openaiGroup("g", words(300)), ...anthropicGroup("t", words(300)), user("last question " + words(400))];
    const out = await createStrategy(options).compact(history, contextFor());
    expect(out).toContain(pinned);
    expect(out.at(-1)).toBe(history.at(-1));
    expect(strategyOutputProblems(history, out)).toEqual([]);
  });

  it("property: instructions, critical messages, whole tool units; input untouched; at most one summary", async () => {
    await fc.assert(
      fc.asyncProperty(toolHistoryArbitrary(), fc.integer({ min: 50, max: 3_000 }), async (history, recentTokenBudget) => {
        const before = JSON.stringify(history);
        const out = await createStrategy({ use: "summarization", recentTokenBudget, minOldTokens: 0 }).compact(history, contextFor());
        expect(strategyOutputProblems(history, out, before)).toEqual([]);
        expect(out.filter(isSummaryMessage).length).toBeLessThanOrEqual(1);
      }),
      { numRuns: Math.max(20, Math.floor(propertyRuns(200) / 10)) },
    );
  });
});
