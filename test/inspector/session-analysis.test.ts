import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { getTokenCounter } from "@amplifier-ts/tokens";
import { analyzeSession } from "../../src/replay/session-analysis.js";

/** analyzeSession: a session's windows as the Inspector shows them, from a real replay with explain on every turn. */
const SAMPLE = readFileSync(new URL("../../examples/sample-session.jsonl", import.meta.url), "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .slice(0, 140)
  .map((l) => JSON.parse(l) as Message);

describe("analyzeSession", () => {
  it("explains every turn over the whole history: runs cover positions 0 … n-1, the token bar adds up to the window", async () => {
    const { analysis, tokens } = await analyzeSession(SAMPLE, { budget: 6_000 });
    const counter = getTokenCounter("gpt-4o");
    expect(analysis).toMatchObject({ module: "context-persistent", model: "gpt-4o" });
    expect(analysis.turns.length).toBe(SAMPLE.filter((m) => m.role === "assistant").length);
    expect(tokens).toEqual(SAMPLE.map((m) => counter.countMessage(m)));
    for (const turn of analysis.turns) {
      const runs = turn.decisions!;
      expect(runs[0]!.from).toBe(0);
      expect(runs.at(-1)!.to).toBe(turn.messageIndex);
      for (let i = 1; i < runs.length; i++) expect(runs[i]!.from).toBe(runs[i - 1]!.to);
      // The bar's "history kept" is what the kept conversation costs (plus the reply priming).
      let kept = counter.replyPriming;
      for (const r of runs) if (r.decision === "kept" && r.reason !== "system/developer instruction: always kept, first") for (let i = r.from; i < r.to; i++) kept += tokens[i]!;
      // … exactly, when the window holds only stored messages kept whole (no synthetic placeholder or result).
      const keptMessages = runs.filter((r) => r.decision === "kept").reduce((n, r) => n + r.to - r.from, 0);
      if (keptMessages === turn.windowMessages) expect(turn.historyKeptTokens).toBe(kept);
      else expect(turn.historyKeptTokens).toBeGreaterThan(kept);
      expect(turn.toolTokens).toBe(0);
      expect(turn.instructionTokens).toBe(tokens[0]);
      expect(turn.budget).toBe(6_000);
      expect(turn.windowTokens).toBeLessThanOrEqual(6_000);
    }
    const last = analysis.turns.at(-1)!;
    expect(last.decisions!.map((r) => [r.decision, r.reason])).toContainEqual(["dropped", "older than the window's cut (budget)"]);
  });

  it("reports summarized messages with the strategy that summarized them (a summarization pipeline)", async () => {
    const config = { session: { context: { module: "context-simple", config: { strategies: [{ use: "summarization", recentTokenBudget: 3_000, minOldTokens: 200 }] } } } };
    const { analysis } = await analyzeSession(SAMPLE, { config, budget: 20_000 });
    expect(analysis.module).toBe("context-simple");
    const summarized = analysis.turns.at(-1)!.decisions!.find((r) => r.decision === "summarized")!;
    expect(summarized.strategy).toBe("summarization");
    expect(summarized.reason).toMatch(/^older than the most recent 3000 tokens; summarized into /);
    expect(summarized.to - summarized.from).toBeGreaterThan(50);
  });

  it("takes the cached share from the bill when the assistant message carries one, else from the simulation with `cache`", async () => {
    const billed = SAMPLE.slice(0, 6).map((m, i) => (i === 2 ? { ...m, metadata: { ...m.metadata, usage: { inputTokens: 150, cacheReadTokens: 120 } } } : m));
    const { analysis } = await analyzeSession(billed, { cache: true });
    expect(analysis.turns[0]!.cache).toEqual({ inputTokens: 150, cachedTokens: 120, billed: true });
    expect(analysis.turns[1]!.cache).toMatchObject({ billed: false });
    const { analysis: plain } = await analyzeSession(SAMPLE.slice(0, 6));
    expect(plain.turns.every((t) => t.cache === undefined)).toBe(true);
  });
});
