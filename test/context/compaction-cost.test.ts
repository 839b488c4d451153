import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CompactionCostDecision, Message } from "../../contracts/index.js";
import { HookBus } from "../../core/hooks/index.js";
import { decideCompaction } from "../../modules/context-manager/compaction-cost.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { registerModel } from "../../modules/tokens/index.js";

const openaiPrices = { input: 2, cachedInput: 1 };
const anthropicPrices = { input: 3, cachedInput: 0.3, cacheWrite: 3.75 };

describe("decideCompaction: the arithmetic, by hand", () => {
  it("compacts earlier than the threshold when the carried tokens over the horizon cost more than the new prefix", () => {
    // now:   write 70,000 × $2/M = 0.14; reads Σ_{k=1..9} (70,000 + 1,000k) = 675,000 × $1/M = 0.675 → 0.815
    // defer: reads Σ_{k=0..9} (80,000 + 1,000k) = 845,000 × $1/M = 0.845 (89,000 ≤ 100,000: never forced)
    const d = decideCompaction({ windowTokens: 80_000, targetTokens: 70_000, budget: 100_000, growthPerTurn: 1_000, horizonTurns: 10, prices: openaiPrices });
    expect(d.now!.cacheWriteUsd).toBeCloseTo(0.14, 12);
    expect(d.now!.readsUsd).toBeCloseTo(0.675, 12);
    expect(d.now!.totalUsd).toBeCloseTo(0.815, 12);
    expect(d.defer!.totalUsd).toBeCloseTo(0.845, 12);
    expect(d.defer!.compactions).toEqual([]);
    expect(d.compact).toBe(true);
    expect(d.reason).toContain("compacting now");
  });

  it("defers over a short horizon: the same window over 5 turns", () => {
    // now 0.14 + (71+72+73+74)k × $1/M = 0.43; defer (80+81+82+83+84)k × $1/M = 0.41
    const d = decideCompaction({ windowTokens: 80_000, targetTokens: 70_000, budget: 100_000, growthPerTurn: 1_000, horizonTurns: 5, prices: openaiPrices });
    expect(d.now!.totalUsd).toBeCloseTo(0.43, 12);
    expect(d.defer!.totalUsd).toBeCloseTo(0.41, 12);
    expect(d.compact).toBe(false);
  });

  it("when carrying would be forced within the horizon: each plan until the forced compaction, less the cycle's mean cost per turn (Anthropic prices: carry to the budget)", () => {
    // Cycle T → B: n = ⌊(10,000 − 7,000)/100⌋ = 30 carrying turns, Σ_{k=1..30} (7,000 + 100k) × 0.3 = 256,500 × 0.3 = 76,950 µ$;
    // its compaction 7,000 × 3.75 = 26,250 µ$ → ρ = 103,200 / 31 µ$ per turn.
    // now:   26,250 + 76,950 − 31ρ = 0
    // defer: (9,900 + 10,000) × 0.3 = 5,970 µ$ over 2 turns, − 2ρ = 5,970 − 6,658.06… = −688.06… µ$ → carry
    const d = decideCompaction({ windowTokens: 9_900, targetTokens: 7_000, budget: 10_000, growthPerTurn: 100, horizonTurns: 3, prices: anthropicPrices });
    expect(d.mode).toBe("cycle");
    expect(d.averageTurnUsd).toBeCloseTo(0.1032 / 31, 12);
    expect(d.now!.readsUsd).toBeCloseTo(0.07695, 12);
    expect(d.now!.cacheWriteUsd).toBeCloseTo(0.02625, 12);
    expect(d.now!.totalUsd).toBeCloseTo(0, 12);
    expect(d.defer!.readsUsd).toBeCloseTo(0.00597, 12);
    expect(d.defer!.turns).toBe(2);
    expect(d.defer!.compactions).toEqual([2]);
    expect(d.defer!.totalUsd).toBeCloseTo(0.00597 - (2 * 0.1032) / 31, 12);
    expect(d.compact).toBe(false);
    // Not forced within 3 turns (9,700 + 2 × 100 ≤ 10,000): the horizon sums, carry.
    const before = decideCompaction({ windowTokens: 9_700, targetTokens: 7_000, budget: 10_000, growthPerTurn: 100, horizonTurns: 3, prices: anthropicPrices });
    expect(before.mode).toBe("horizon");
    expect(before.defer!.totalUsd).toBeCloseTo((9_700 + 9_800 + 9_900) * 0.3e-6, 12);
    expect(before.now!.totalUsd).toBeCloseTo(0.02625 + (7_100 + 7_200) * 0.3e-6, 12);
    expect(before.compact).toBe(false);
  });

  it("the cycle case with OpenAI-style prices (a write costs 2 reads): compacting at 80 % beats carrying to the budget", () => {
    // Cycle: 30 carrying turns Σ (70,000 + 1,000k) = 2,565,000 × $1/M = 2.565; compaction 70,000 × 2 = 0.14 → ρ = 2.705 / 31.
    // now 2.705 − 31ρ = 0; defer: Σ_{j=0..20} (80,000 + 1,000j) = 1,890,000 → 1.89 − 21ρ = 0.05758… → compact
    const d = decideCompaction({ windowTokens: 80_000, targetTokens: 70_000, budget: 100_000, growthPerTurn: 1_000, horizonTurns: 30, prices: openaiPrices });
    expect(d.mode).toBe("cycle");
    expect(d.now!.totalUsd).toBeCloseTo(0, 12);
    expect(d.defer!.turns).toBe(21);
    expect(d.defer!.totalUsd).toBeCloseTo(1.89 - (21 * 2.705) / 31, 12);
    expect(d.compact).toBe(true);
  });

  it("prices the summarizer's call: an expensive one flips the first case to defer", () => {
    // cheap summarizer ($1 in, $4 out, 2,000-token summary): (80,000 − 70,000) × 1 + 2,000 × 4 = $0.018 → now 0.833 < 0.845
    const cheap = decideCompaction({ windowTokens: 80_000, targetTokens: 70_000, budget: 100_000, growthPerTurn: 1_000, horizonTurns: 10, prices: openaiPrices, summarizer: { input: 1, output: 4, summaryTokens: 2_000 } });
    expect(cheap.now!.summarizerUsd).toBeCloseTo(0.018, 12);
    expect(cheap.compact).toBe(true);
    // dear one ($3 in, $15 out): 0.03 + 0.03 = $0.06 → now 0.875 > 0.845
    const dear = decideCompaction({ windowTokens: 80_000, targetTokens: 70_000, budget: 100_000, growthPerTurn: 1_000, horizonTurns: 10, prices: openaiPrices, summarizer: { input: 3, output: 15, summaryTokens: 2_000 } });
    expect(dear.now!.totalUsd).toBeCloseTo(0.875, 12);
    expect(dear.compact).toBe(false);
  });
});

// --- the context manager under each policy ------------------------------------------------------

const BUDGET = 10_000;
const undo: (() => void)[] = [];
beforeAll(() => {
  const base = { contextWindow: 200_000, maxOutputTokens: 8_000, encoding: "o200k_base" as const, provider: "test", safetyFactor: 1 };
  undo.push(registerModel("priced-test-openai", { ...base, family: "openai", prices: { ...openaiPrices, output: 8, asOf: "2026-11-28", source: "test" } }));
  undo.push(registerModel("priced-test-anthropic", { ...base, family: "anthropic", prices: { ...anthropicPrices, output: 15, asOf: "2026-11-28", source: "test" } }));
});
afterAll(() => undo.forEach((u) => u()));

const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `w${(i * 7 + seed) % 997}`).join(" ");

interface Walk {
  /** The first turn whose window dropped messages it sent before (a new cut). */
  firstCompaction: number | undefined;
  windows: number[];
  decisions: (CompactionCostDecision | undefined)[];
  pre: Array<{ decision?: CompactionCostDecision }>;
}

/** Turn by turn: a user prompt and an answer of the same size, then a window at BUDGET. */
async function walk(model: string, compactionPolicy: unknown, turns: number, perMessage: number): Promise<Walk> {
  const hooks = new HookBus();
  const pre: Walk["pre"] = [];
  hooks.on("context:pre_compact", (p) => void pre.push(p));
  const context = new HistoryContextManager({ moduleName: "context-simple", options: { spill: false, model, compactionPolicy } as never, hooks });
  await context.addMessage({ role: "system", content: "You answer." });
  const out: Walk = { firstCompaction: undefined, windows: [], decisions: [], pre };
  let previousFirst: string | undefined;
  for (let t = 0; t < turns; t++) {
    await context.addMessage({ role: "user", content: words(perMessage, t) });
    const window: Message[] = await context.getMessagesForRequest(BUDGET);
    const first = window.find((m) => m.role !== "system")?.metadata?.id;
    if (out.firstCompaction === undefined && previousFirst !== undefined && first !== previousFirst) out.firstCompaction = t;
    previousFirst = first;
    out.windows.push(context.explainLastWindow()!.report.windowTokens);
    out.decisions.push(context.explainLastWindow()!.compactionDecision);
    await context.addMessage({ role: "assistant", content: words(perMessage, t + 500) });
  }
  return out;
}

/** The closed forms of the two plans when the defer plan is not forced within the horizon (see compaction-cost.ts). */
function closedForm(d: CompactionCostDecision, p: { input: number; cachedInput: number; cacheWrite?: number }) {
  const h = d.horizonTurns;
  const write = (p.cacheWrite ?? p.input) / 1e6;
  const read = p.cachedInput / 1e6;
  const growth = (d.growthPerTurn * read * h * (h - 1)) / 2;
  return { now: d.targetTokens * write + (h - 1) * d.targetTokens * read + growth, defer: h * d.windowTokens * read + growth };
}

describe("compactionPolicy in the context manager", () => {
  it("cost (OpenAI-style prices, slow growth, 8-turn horizon) compacts before the threshold would, where the arithmetic says so", async () => {
    const threshold = await walk("priced-test-openai", "threshold", 120, 30);
    const cost = await walk("priced-test-openai", { policy: "cost", horizonTurns: 8 }, 120, 30);
    expect(threshold.firstCompaction).toBeDefined();
    expect(cost.firstCompaction).toBeDefined();
    expect(cost.firstCompaction!).toBeLessThan(threshold.firstCompaction!);
    const t = cost.firstCompaction!;
    const at = cost.decisions[t]!;
    expect(at.compact).toBe(true);
    expect(at.windowTokens).toBeLessThanOrEqual(0.9 * BUDGET); // the threshold would not have cut it
    expect(at.mode).toBe("horizon"); // not forced within the horizon: the closed form holds
    const form = closedForm(at, openaiPrices);
    expect(at.now!.totalUsd).toBeCloseTo(form.now, 12);
    expect(at.defer!.totalUsd).toBeCloseTo(form.defer, 12);
    expect(form.now).toBeLessThan(form.defer);
    // Every decision before it past the target was to carry, and the arithmetic agreed.
    const earlier = cost.decisions.slice(0, t).filter((d): d is CompactionCostDecision => d !== undefined);
    expect(earlier.length).toBeGreaterThan(0);
    for (const d of earlier) {
      expect(d.compact).toBe(false);
      expect(d.mode).toBe("horizon");
      const f = closedForm(d, openaiPrices);
      expect(f.now).toBeGreaterThanOrEqual(f.defer);
    }
    // The same events as the threshold policy, now with the decision.
    expect(cost.pre.some((p) => p.decision?.compact === true && p.decision.reason.includes("compacting now"))).toBe(true);
    expect(threshold.pre.every((p) => p.decision === undefined)).toBe(true);
    for (const w of [...cost.windows, ...threshold.windows]) expect(w).toBeLessThanOrEqual(BUDGET);
  });

  it("cost (Anthropic-style prices: writes 12.5 × reads, 3-turn horizon) carries the window past the threshold and compacts later", async () => {
    const threshold = await walk("priced-test-anthropic", "threshold", 60, 60);
    const cost = await walk("priced-test-anthropic", { policy: "cost", horizonTurns: 3 }, 60, 60);
    expect(cost.firstCompaction!).toBeGreaterThan(threshold.firstCompaction!);
    const carried = cost.decisions.filter((d) => d !== undefined && !d.compact && d.windowTokens > 0.9 * BUDGET);
    expect(carried.length).toBeGreaterThan(0); // windows the threshold would have cut
    const at = cost.decisions[cost.firstCompaction!]!;
    expect(at.compact).toBe(true);
    // Carried to the budget: compacted only when the window no longer fit (writes cost 12.5 reads).
    expect(at.forced).toBe(true);
    expect(cost.decisions.filter((d) => d?.compact === true).every((d) => d!.forced === true)).toBe(true);
    for (const w of cost.windows) expect(w).toBeLessThanOrEqual(BUDGET);
  });

  it("a model without prices keeps the threshold's behaviour (and no decision)", async () => {
    const threshold = await walk("unpriced-test-model", "threshold", 40, 60);
    const cost = await walk("unpriced-test-model", "cost", 40, 60);
    expect(cost.firstCompaction).toBe(threshold.firstCompaction);
    expect(cost.decisions.every((d) => d === undefined)).toBe(true);
  });

  it("bad compactionPolicy configs fail with INVALID_MODULE_CONFIG naming the path and what was expected", () => {
    const bad: Array<[unknown, string]> = [
      ["cheapest", "config.compactionPolicy"],
      [{ policy: "cost", horizonTurns: 0 }, "config.compactionPolicy.horizonTurns"],
      [{ policy: "cost", horizonTurns: 2.5 }, "config.compactionPolicy.horizonTurns"],
      [{ policy: "cost", horizon: 5 }, "config.compactionPolicy"],
      [{ horizonTurns: 5 }, "config.compactionPolicy"],
    ];
    for (const [compactionPolicy, path] of bad) {
      let error: unknown;
      try {
        new HistoryContextManager({ moduleName: "context-simple", options: { compactionPolicy } as never });
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(compactionPolicy)).toMatchObject({ code: "INVALID_MODULE_CONFIG" });
      expect((error as { details: { path: string } }).details.path.startsWith(path), `${JSON.stringify(compactionPolicy)}: ${(error as { details: { path: string } }).details.path}`).toBe(true);
    }
  });
});
