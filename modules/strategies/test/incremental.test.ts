/**
 * Strategies keep work between requests while the history only grows (HistoryUnits.extend,
 * tool-result-compaction's copies): the result must be exactly what a fresh run computes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { propertyRuns } from "@amplifier-ts/testing";
import { toolHistoryArbitrary } from "@amplifier-ts/testing";
import { HistoryUnits } from "../history-units.js";
import { createStrategy } from "../registry.js";
import { ExplainLog } from "../explain-recorder.js";
import { contextFor, openaiGroup, user } from "./helpers.js";

const runs = Math.max(50, Math.floor(propertyRuns(1_000) / 10));

/** What a split says about every position: its unit's kind and first position, critical flag. */
function shape(units: HistoryUnits): unknown[] {
  return Array.from(units.unitOf, (u) => (u < 0 ? u : [units.units[u]!.kind, units.units[u]!.firstStored, units.units[u]!.critical, units.size(u)]));
}

describe("HistoryUnits.extend", () => {
  it("property: extending split by split equals one fresh split, for any cut of the history into appends", () => {
    fc.assert(
      fc.property(toolHistoryArbitrary(), fc.array(fc.nat(), { maxLength: 6 }), (history, cuts) => {
        const points = [...new Set(cuts.map((c) => c % (history.length + 1)))].sort((a, b) => a - b);
        let units: HistoryUnits | undefined;
        for (const p of [...points, history.length]) units = HistoryUnits.extend(units, history.slice(0, p));
        expect(shape(units!)).toEqual(shape(new HistoryUnits(history)));
        expect(units!.length).toBe(new HistoryUnits(history).length);
      }),
      { numRuns: runs },
    );
  });

  it("starts over when the input is not an extension (a message replaced, or fewer messages)", () => {
    const a = [user("one"), ...openaiGroup("g1", "r1")];
    const first = new HistoryUnits(a);
    const replaced = [user("other"), ...a.slice(1)];
    const next = HistoryUnits.extend(first, replaced);
    expect(next.index).not.toBe(first.index);
    expect(next.messages[0]).toBe(replaced[0]);
    const shorter = HistoryUnits.extend(next, replaced.slice(0, 1));
    expect(shorter.index).not.toBe(next.index);
    expect(shorter.length).toBe(1);
  });

  it("an array the caller pushes to between calls is handled (the split keeps its own snapshot)", () => {
    const history: Message[] = [user("one")];
    const first = HistoryUnits.extend(undefined, history);
    history.push(...openaiGroup("g", "r"));
    const second = HistoryUnits.extend(first, history);
    expect(second.length).toBe(2);
    expect(shape(second)).toEqual(shape(new HistoryUnits(history)));
  });
});

describe("tool-result-compaction reuses its copies while the history grows", () => {
  it("property: output after appends equals a fresh strategy's output, with or without explain", () => {
    fc.assert(
      fc.property(toolHistoryArbitrary(), fc.array(fc.nat(), { maxLength: 5 }), fc.integer({ min: 1, max: 40 }), (history, cuts, maxChars) => {
        const warm = createStrategy({ use: "tool-result-compaction", maxChars });
        const points = [...new Set(cuts.map((c) => c % (history.length + 1)))].sort((a, b) => a - b);
        for (const p of points) warm.compact(history.slice(0, p), contextFor(100_000, new ExplainLog(false)));
        const got = warm.compact(history, contextFor(100_000, new ExplainLog(false))) as Message[];
        const fresh = createStrategy({ use: "tool-result-compaction", maxChars }).compact(history, contextFor()) as Message[];
        expect(got.map((m) => JSON.stringify(m))).toEqual(fresh.map((m) => JSON.stringify(m)));
        // The unchanged messages are the input objects themselves.
        got.forEach((m, i) => {
          if (JSON.stringify(m) === JSON.stringify(history[i])) expect(m).toBe(history[i]);
        });
      }),
      { numRuns: runs },
    );
  });
});

describe("RunningTokens", () => {
  it("property: after any sequence of extensions, replacements and shrinks, the total equals countMessages", async () => {
    const { RunningTokens } = await import("../running-tokens.js");
    const { getTokenCounter } = await import("@amplifier-ts/tokens");
    const counter = getTokenCounter("gpt-4o");
    fc.assert(
      fc.property(toolHistoryArbitrary(), fc.array(fc.tuple(fc.nat(), fc.boolean()), { maxLength: 6 }), (history, steps) => {
        const running = new RunningTokens();
        for (const [n, replace] of steps) {
          const prefix = history.slice(0, n % (history.length + 1));
          if (replace && prefix.length > 0) prefix[0] = { ...prefix[0]!, content: "replaced in place" } as Message;
          expect(running.measure(prefix, counter)).toBe(counter.countMessages(prefix));
        }
        expect(running.measure(history, counter)).toBe(counter.countMessages(history));
      }),
      { numRuns: runs },
    );
  });
});

describe("summarizing reuses the previous call's view while the input only grows", () => {
  it("property: same objects (fast path) and fresh copies every call (full path) give the same windows at every step", async () => {
    await fc.assert(
      fc.asyncProperty(toolHistoryArbitrary(), fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), fc.integer({ min: 800, max: 6_000 }), async (history, cuts, contextWindow) => {
        const spec = { use: "summarizing", threshold: 0.8, recentRatio: 0.4, summaryMaxTokens: 200, contextWindow };
        const warm = createStrategy(spec);
        const cold = createStrategy(spec);
        const points = [...new Set(cuts.map((c) => c % (history.length + 1))), history.length].sort((a, b) => a - b);
        // One context (one counter object) per run, as a context module uses: the fast path needs the same counter.
        const context = contextFor(100_000, new ExplainLog(false));
        for (const p of points) {
          const prefix = history.slice(0, p);
          const a = (await warm.compact(prefix, context)) as Message[];
          const b = (await cold.compact(structuredClone(prefix), context)) as Message[];
          expect(a.map((m) => JSON.stringify(m))).toEqual(b.map((m) => JSON.stringify(m)));
        }
      }),
      { numRuns: Math.max(30, Math.floor(runs / 2)) },
    );
  });
});
