import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message } from "../../../contracts/generated/message.js";
import { propertyRuns, toolHistoryArbitrary } from "../../../testing/index.js";
import { HybridContext } from "../../../modules/strategies/summarizing/index.js";
import { createStrategy } from "../../../modules/strategies/registry.js";
import { MemoryStore } from "../../../modules/stores/index.js";
import { contextFor, ids, openaiGroup } from "../../../modules/strategies/test/helpers.js";
import { strategyOutputProblems } from "../../../modules/strategies/test/summarizing/output-checks.js";

const msg = (id: string, role: Message["role"], content: string): Message => ({ role, content, metadata: { id } });

async function stores(cold: Message[], hot: Message[]) {
  const coldStore = new MemoryStore();
  const hotStore = new MemoryStore();
  await coldStore.appendMany("s1", cold);
  await hotStore.appendMany("s1", hot);
  return { hot: hotStore, cold: coldStore, sessionId: "s1" };
}

describe("hybrid", () => {
  const all = [msg("sys", "system", "be brief"), ...Array.from({ length: 20 }, (_, i) => msg(`m${i}`, i % 2 ? "assistant" : "user", i % 2 ? "ok" : `q${i}`))];

  it("merges the hot store's last recentN with a cold backfill up to maxTotal, in stored order, system kept", async () => {
    const hybrid = new HybridContext({ recentN: 4, maxTotal: 10 }, await stores(all, all.slice(-6)));
    const out = await hybrid.compact(all, contextFor());
    expect(ids(out)).toEqual(["sys", ...ids(all.slice(-10))]);
  });

  it("de-duplicates by message id, never by content: two identical \"ok\" messages stay two", async () => {
    const hybrid = new HybridContext({ recentN: 4, maxTotal: 8 }, await stores(all, all.slice(-6)));
    const out = await hybrid.compact(all, contextFor());
    expect(new Set(ids(out)).size).toBe(out.length);
    expect(out.filter((m) => m.content === "ok").length).toBe(4);
  });

  it("includes hot messages the cold store does not hold yet (written behind), after the cold ones", async () => {
    const cold = all.slice(0, 17);
    const hybrid = new HybridContext({ recentN: 3, maxTotal: 6 }, await stores(cold, all.slice(-5)));
    const out = await hybrid.compact(all, contextFor());
    expect(ids(out)).toEqual(["sys", ...ids(all.slice(-6))]);
  });

  it("keeps the hot recentN even when maxTotal leaves no backfill; never more than maxTotal counted messages", async () => {
    for (const [recentN, maxTotal] of [[2, 2], [2, 4], [4, 12]] as const) {
      const out = await new HybridContext({ recentN, maxTotal }, await stores(all, all.slice(-recentN))).compact(all, contextFor());
      expect(out.filter((m) => m.role !== "system").length).toBe(maxTotal);
      expect(ids(out).slice(-recentN)).toEqual(ids(all.slice(-recentN)));
    }
  });

  it("keeps ephemeral input messages the stores never hold", async () => {
    const step: Message = { role: "assistant", content: "thinking…", metadata: { id: "e1", ephemeral: true } };
    const out = await new HybridContext({ recentN: 2, maxTotal: 4 }, await stores(all, all.slice(-2))).compact([...all, step], contextFor());
    expect(out.at(-1)).toBe(step);
  });

  it("rejects recentN > maxTotal with INVALID_STRATEGY_OPTIONS", () => {
    expect(() => createStrategy({ use: "hybrid", recentN: 10, maxTotal: 5 })).toThrow(expect.objectContaining({ code: "INVALID_STRATEGY_OPTIONS", path: "strategies[0].recentN" }));
    expect(() => createStrategy({ use: "hybrid", recentN: 5, maxTotal: 5 })).not.toThrow();
  });

  it("without stores, the input is both hot and cold: the last maxTotal messages, tool groups whole", async () => {
    const history = [...all.slice(0, 5), ...openaiGroup("g", "a", "b", "c"), ...all.slice(5, 8)];
    const out = await createStrategy({ use: "hybrid", recentN: 2, maxTotal: 5 }).compact(history, contextFor());
    expect(strategyOutputProblems(history, out)).toEqual([]);
  });

  it("property: instructions, critical messages and whole tool units kept; input untouched", async () => {
    await fc.assert(
      fc.asyncProperty(toolHistoryArbitrary(), fc.integer({ min: 1, max: 10 }), fc.integer({ min: 0, max: 10 }), async (history, recentN, extra) => {
        const before = JSON.stringify(history);
        const out = await createStrategy({ use: "hybrid", recentN, maxTotal: recentN + extra }).compact(history, contextFor());
        expect(strategyOutputProblems(history, out, before)).toEqual([]);
      }),
      { numRuns: Math.max(20, Math.floor(propertyRuns(200) / 10)) },
    );
  });
});
