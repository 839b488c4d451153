import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Summarizer } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { propertyRuns, toolHistoryArbitrary } from "@amplifier-ts/testing";
import { HookBus } from "@amplifier-ts/core";
import { SummarizingContext, isSummaryMessage, summarizingOptions } from "../../summarizing/index.js";
import { createStrategy } from "../../registry.js";
import { assistant, contextFor, system, user } from "../helpers.js";
import { strategyOutputProblems } from "./output-checks.js";

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");
const options = summarizingOptions.parse({ threshold: 0.8, recentRatio: 0.4, contextWindow: 2_000, summaryMaxTokens: 200 });

function counting(): Summarizer & { calls: number } {
  const s = { name: "counting", calls: 0, async summarize(messages: readonly Message[], o: { previousSummary?: string }) {
    s.calls++;
    return `${o.previousSummary ?? ""}[${messages.length} msgs]`;
  } };
  return s;
}

function grow(history: Message[], turns: number, start = 0): void {
  for (let k = start; k < start + turns; k++) history.push(user(`q${k} TICKET-${k} ${words(30)}`), assistant(`a${k} ${words(30)}`));
}

describe("summarizing", () => {
  it("passes the history through below threshold × the model's window", async () => {
    const history = [system("s"), user("q"), assistant("a")];
    const out = await new SummarizingContext(options).compact(history, contextFor());
    expect(out).toEqual(history);
  });

  it("past the threshold: [instructions, checkpoint, recent]; metadata.summary = { covers, strategy, summarizer }", async () => {
    const history: Message[] = [system("s")];
    grow(history, 30);
    const ctx = contextFor();
    const out = await new SummarizingContext(options).compact(history, ctx);
    expect(out[0]).toBe(history[0]);
    const checkpoint = out[1]!;
    expect(checkpoint.metadata?.summary).toMatchObject({ strategy: "summarizing", summarizer: "extractive" });
    expect(checkpoint.content).toMatch(/TICKET-\d+/);
    expect(ctx.counter.countMessages(out)).toBeLessThanOrEqual(0.8 * 2_000);
    const covers = checkpoint.metadata!.summary!.covers;
    expect([...covers, ...out.slice(2).map((m) => m.metadata?.id)]).toEqual(history.slice(1).map((m) => m.metadata?.id));
    expect(history).toHaveLength(61);
  });

  it("computes the checkpoint ONCE: later windows reuse it until the threshold is passed again, then update it", async () => {
    const summarizer = counting();
    const persisted: Message[] = [];
    const strategy = new SummarizingContext(options, { onCheckpoint: (m) => void persisted.push(m) });
    const ctx = { ...contextFor(), summarizer };
    const history: Message[] = [system("s")];
    grow(history, 30);
    const first = await strategy.compact(history, ctx);
    const again = await strategy.compact(history, ctx);
    expect(again[1]).toBe(first[1]);
    expect(summarizer.calls).toBe(1);
    grow(history, 2, 30);
    const later = await strategy.compact(history, ctx);
    expect(later[1]).toBe(first[1]);
    expect(summarizer.calls).toBe(1);
    grow(history, 30, 32);
    const updated = await strategy.compact(history, ctx);
    expect(summarizer.calls).toBe(2);
    expect(updated.filter(isSummaryMessage)).toHaveLength(1);
    expect(String(updated[1]!.content)).toMatch(/\[\d+ msgs\]\[\d+ msgs\]$/);
    expect(persisted).toEqual([first[1], updated[1]]);
  });

  it("survives resume: a fresh instance adopts the stored checkpoint instead of summarising again; originals untouched", async () => {
    const summarizer = counting();
    const history: Message[] = [system("s")];
    grow(history, 30);
    const before = JSON.stringify(history);
    const stored: Message[] = [];
    await new SummarizingContext(options, { onCheckpoint: (m) => void stored.push(m) }).compact(history, { ...contextFor(), summarizer });
    expect(JSON.stringify(history)).toBe(before);
    // The context module persisted the checkpoint at the end of the history; a new process resumes.
    const resumed = [...history, ...stored];
    const out = await new SummarizingContext(options).compact(resumed, { ...contextFor(), summarizer });
    expect(summarizer.calls).toBe(1);
    expect(out.filter(isSummaryMessage)).toEqual(stored);
    expect(out[1]).toBe(stored[0]);
  });

  it("falls back to dropping when the summarizer fails, with context:summary_failed; retries next time", async () => {
    const hooks = new HookBus();
    const events: unknown[] = [];
    hooks.on("context:summary_failed", (e) => events.push(e));
    let fail = true;
    const flaky: Summarizer = { name: "flaky", summarize: async () => { if (fail) throw new Error("rate limited"); return "ok summary"; } };
    const history: Message[] = [system("s")];
    grow(history, 30);
    const strategy = createStrategy({ use: "summarizing", contextWindow: 2_000, recentRatio: 0.4 });
    const out = await strategy.compact(history, { ...contextFor(), summarizer: flaky, hooks });
    expect(out.some(isSummaryMessage)).toBe(false);
    expect(out.length).toBeLessThan(history.length);
    expect(events).toEqual([expect.objectContaining({ strategy: "summarizing", summarizer: "flaky", reason: "rate limited" })]);
    fail = false;
    const retry = await strategy.compact(history, { ...contextFor(), summarizer: flaky, hooks });
    expect(retry.some(isSummaryMessage)).toBe(true);
  });

  it("validates recentRatio < threshold", () => {
    expect(() => createStrategy({ use: "summarizing", threshold: 0.5, recentRatio: 0.6 })).toThrow(expect.objectContaining({ code: "INVALID_STRATEGY_OPTIONS" }));
  });

  it("property: instructions, critical messages, whole tool units; input untouched", async () => {
    await fc.assert(
      fc.asyncProperty(toolHistoryArbitrary(), fc.integer({ min: 500, max: 20_000 }), async (history, contextWindow) => {
        const before = JSON.stringify(history);
        const out = await createStrategy({ use: "summarizing", contextWindow, summaryMaxTokens: 100 }).compact(history, contextFor());
        expect(strategyOutputProblems(history, out, before)).toEqual([]);
        expect(out.filter(isSummaryMessage).length).toBeLessThanOrEqual(1);
      }),
      { numRuns: Math.max(20, Math.floor(propertyRuns(200) / 10)) },
    );
  });
});
