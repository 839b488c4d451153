import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { propertyRuns, toolHistoryArbitrary } from "@amplifier-ts/testing";
import { createStrategy } from "../../registry.js";
import { strategyOutputProblems } from "../summarizing/output-checks.js";
import { anthropicGroup, assistant, contextFor, ids, openaiGroup, system, user } from "../helpers.js";

describe("message-window", () => {
  it("keeps the n most recent user/assistant messages and every system message", async () => {
    const history = [system("s"), user("q1"), assistant("a1"), user("q2"), assistant("a2"), user("q3"), assistant("a3")];
    const out = await createStrategy({ use: "message-window", n: 4, targetRatio: 1 }).compact(history, contextFor());
    expect(ids(out)).toEqual(ids([history[0]!, ...history.slice(3)]));
  });

  it("returns the history unchanged while it holds ≤ n messages", async () => {
    const history = [system("s"), user("q1"), assistant("a1")];
    const out = await createStrategy({ use: "message-window", n: 2 }).compact(history, contextFor());
    expect(out).toEqual(history);
    expect(out).not.toBe(history);
  });

  it("counts a tool call and all its results as one message and keeps them whole (both styles)", async () => {
    const history = [user("q1"), ...openaiGroup("o", "r1", "r2"), user("q2"), ...anthropicGroup("t", "r"), assistant("done")];
    const out = await createStrategy({ use: "message-window", n: 3, targetRatio: 1 }).compact(history, contextFor());
    expect(ids(out)).toEqual(ids(history.slice(4)));
    const more = await createStrategy({ use: "message-window", n: 4, targetRatio: 1 }).compact(history, contextFor());
    expect(ids(more)).toEqual(ids(history));
  });

  it("adds the prompt of the turn when the window starts inside it", async () => {
    const history = [user("q1"), assistant("a1"), user("q2"), ...openaiGroup("x", "r"), assistant("a2")];
    const out = await createStrategy({ use: "message-window", n: 2, targetRatio: 1 }).compact(history, contextFor());
    expect(ids(out)).toEqual(ids(history.slice(2)));
  });

  it("keeps critical messages wherever they are and records explain decisions", async () => {
    const pinned = user("pinned", { metadata: { id: "pin", critical: true } });
    const history = [pinned, assistant("a0"), user("q1"), assistant("a1"), user("q2"), assistant("a2")];
    const ctx = contextFor();
    const out = await createStrategy({ use: "message-window", n: 2, targetRatio: 1 }).compact(history, ctx);
    expect(ids(out)).toEqual(["pin", ...ids(history.slice(4))]);
    expect(ctx.explain.entries.map((e) => [e.messageId, e.decision])).toEqual(ids(history.slice(1, 4)).map((id) => [id, "dropped"]));
  });

  it("moves its cut in steps: consecutive windows share a prefix", async () => {
    const distinctStarts = async (targetRatio: number) => {
      const strategy = createStrategy({ use: "message-window", n: 10, targetRatio });
      const history = [system("s")];
      const starts = new Set<unknown>();
      for (let t = 0; t < 30; t++) {
        history.push(user(`q${t}`), assistant(`a${t}`));
        const out = await strategy.compact(history, contextFor());
        expect(out.length - 1).toBeLessThanOrEqual(10);
        starts.add(out[1]!.metadata?.id);
      }
      return starts.size;
    };
    expect(await distinctStarts(1)).toBeGreaterThan(20);
    expect(await distinctStarts(0.5)).toBeLessThanOrEqual(13);
  });

  it("rejects a missing or bad n with INVALID_STRATEGY_OPTIONS", () => {
    expect(() => createStrategy({ use: "message-window" })).toThrow(expect.objectContaining({ code: "INVALID_STRATEGY_OPTIONS" }));
    expect(() => createStrategy({ use: "message-window", n: 0 })).toThrow(expect.objectContaining({ code: "INVALID_STRATEGY_OPTIONS" }));
    expect(() => createStrategy({ use: "message-window", n: 3, max_n: 1 })).toThrow(expect.objectContaining({ code: "INVALID_STRATEGY_OPTIONS" }));
  });

  it("property: keeps instructions, critical messages and whole tool units; never mutates", async () => {
    await fc.assert(
      fc.asyncProperty(toolHistoryArbitrary(), fc.integer({ min: 1, max: 12 }), fc.constantFrom(0.5, 1), async (history, n, targetRatio) => {
        const before = JSON.stringify(history);
        const out = await createStrategy({ use: "message-window", n, targetRatio }).compact(Object.freeze(history), contextFor());
        expect(strategyOutputProblems(history, out, before)).toEqual([]);
      }),
      { numRuns: Math.max(200, Math.floor(propertyRuns(2_000) / 10)) },
    );
  });
});
