import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { propertyRuns, toolHistoryArbitrary } from "@amplifier-ts/testing";
import { getTokenCounter } from "@amplifier-ts/tokens";
import { createStrategy } from "../../registry.js";
import { strategyOutputProblems } from "../summarizing/output-checks.js";
import { anthropicGroup, assistant, contextFor, ids, openaiGroup, system, user } from "../helpers.js";

const counter = getTokenCounter("gpt-4o");
const tokens = (ms: readonly Message[]) => ms.reduce((n, m) => n + counter.countMessage(m), 0);
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(" ");

describe("token-window", () => {
  it("keeps the most recent messages that fit maxTokens, system kept and not counted", async () => {
    const history = [system(words(500)), user("q1"), assistant("a1"), user("q2"), assistant("a2")];
    const maxTokens = tokens(history.slice(3));
    const out = await createStrategy({ use: "token-window", maxTokens, targetRatio: 1 }).compact(history, contextFor());
    expect(ids(out)).toEqual(ids([history[0]!, ...history.slice(3)]));
  });

  it("is contiguous: stops at the first message that does not fit, never takes an older smaller one", async () => {
    const small = user("hi");
    const big = assistant(words(400));
    const recent = [user("q2"), assistant("a2")];
    const history = [small, big, ...recent];
    const maxTokens = tokens(recent) + counter.countMessage(small) + 5;
    expect(maxTokens).toBeLessThan(tokens(recent) + counter.countMessage(big));
    const out = await createStrategy({ use: "token-window", maxTokens, targetRatio: 1 }).compact(history, contextFor());
    expect(ids(out)).toEqual(ids(recent));
    expect(out).not.toContain(small);
  });

  it("takes a tool call with all its results or none of it, counting all their tokens", async () => {
    const group = openaiGroup("g", words(100), words(100));
    const history = [user("q1"), ...group, user("q2"), ...anthropicGroup("t", "ok"), assistant("done")];
    const tail = history.slice(4);
    for (const maxTokens of [tokens(tail), tokens(tail) + tokens(group) - 1]) {
      const out = await createStrategy({ use: "token-window", maxTokens, targetRatio: 1 }).compact(history, contextFor());
      expect(ids(out)).toEqual(ids(tail));
    }
    const all = await createStrategy({ use: "token-window", maxTokens: tokens(history.slice(1)), targetRatio: 1 }).compact(history, contextFor());
    expect(ids(all)).toEqual(ids(history));
  });

  it("keeps the last turn's prompt even when not even the newest unit fits (issue 14, item 3: never a window without the prompt)", async () => {
    const prompt = user("fix the tests");
    const history = [system("be brief"), prompt, assistant(words(400)), user("go on"), assistant(words(400))];
    const out = await createStrategy({ use: "token-window", maxTokens: 50, targetRatio: 1 }).compact(history, contextFor());
    expect(ids(out)).toEqual(ids([history[0]!, history[3]!]));
  });

  it("keeps the turn in progress — the latest call and its results — on top of its limit (issue 28: never cut, or the model calls again)", async () => {
    const prompt = user("fix the tests");
    const history = [system("be brief"), prompt, ...openaiGroup("g", words(400), words(400))];
    const out = await createStrategy({ use: "token-window", maxTokens: 50, targetRatio: 1 }).compact(history, contextFor());
    expect(ids(out)).toEqual(ids(history));
  });

  it("keeps critical messages outside the window verbatim", async () => {
    const pinned: Message = { role: "user", content: words(300), metadata: { id: "pin", critical: true } };
    const history = [pinned, assistant(words(300)), user("q"), assistant("a")];
    const out = await createStrategy({ use: "token-window", maxTokens: tokens(history.slice(2)), targetRatio: 1 }).compact(history, contextFor());
    expect(out).toEqual([pinned, ...history.slice(2)]);
    expect(out[0]).toBe(pinned);
  });

  it("with targetRatio < 1 the window start stays put while the window grows (shared prefix)", async () => {
    const strategy = createStrategy({ use: "token-window", maxTokens: 400, targetRatio: 0.5 });
    const history: Message[] = [];
    const starts: unknown[] = [];
    for (let t = 0; t < 40; t++) {
      history.push(user(`question ${t} ${words(10)}`), assistant(`answer ${t} ${words(10)}`));
      const out = await strategy.compact(history, contextFor());
      expect(tokens(out)).toBeLessThanOrEqual(400);
      starts.push(out[0]!.metadata?.id);
    }
    expect(new Set(starts).size).toBeLessThan(12);
  });

  it("property: a contiguous suffix; instructions, critical messages and whole tool units kept", async () => {
    await fc.assert(
      fc.asyncProperty(toolHistoryArbitrary({ critical: false }), fc.integer({ min: 50, max: 6_000 }), async (history, maxTokens) => {
        const before = JSON.stringify(history);
        const out = await createStrategy({ use: "token-window", maxTokens, targetRatio: 1 }).compact(history, contextFor());
        expect(strategyOutputProblems(history, out, before)).toEqual([]);
        const kept = new Set(out);
        const positions = history.map((m, i) => (kept.has(m) && m.role !== "system" && m.role !== "developer" ? i : -1)).filter((i) => i >= 0);
        // The prompt of the turn the window starts in may be added in front of it.
        if (positions.length > 1 && history[positions[0]!]!.role === "user") positions.shift();
        // Everything between the first and last kept message is kept (results stored out of place aside).
        if (positions.length > 1) {
          const between = history.slice(positions[0]!, positions.at(-1)! + 1).filter((m) => !kept.has(m) && m.role !== "system" && m.role !== "developer");
          expect(between.every((m) => m.role === "tool" || Array.isArray(m.content))).toBe(true);
        }
      }),
      { numRuns: Math.max(200, Math.floor(propertyRuns(2_000) / 10)) },
    );
    await fc.assert(
      fc.asyncProperty(toolHistoryArbitrary(), fc.integer({ min: 50, max: 6_000 }), async (history, maxTokens) => {
        const out = await createStrategy({ use: "token-window", maxTokens }).compact(history, contextFor());
        expect(strategyOutputProblems(history, out)).toEqual([]);
      }),
      { numRuns: Math.max(200, Math.floor(propertyRuns(2_000) / 10)) },
    );
  });
});
