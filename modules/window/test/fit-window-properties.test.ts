/**
 * Properties of fitWindow over random agent conversations, in every format: prompts and results of
 * every size (huge ones included), several calls a step, a crash mid-tool at the end, random
 * budgets and tools. For every window:
 *
 * - it fits the budget, counted independently (read back by the adapters, counted whole);
 * - it is valid for its API (test/adapters/api-rules.ts; the AI SDK's own schema) with every tool
 *   pair intact in the native shape;
 * - every item it shares with the input is the very object given, in the input's order; the input
 *   is never changed;
 * - a fitter kept across a growing conversation gives, at each model call, a window with all of
 *   the above, and writing it incrementally gives the same window as writing it whole; a fitter
 *   told `appendOnly` (it reads only the new items) gives the same windows.
 *
 * Cases per property: AMPLIFIER_PROPERTY_RUNS (default 60 here: each case fits six formats with
 * the real tokenizer).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { propertyRuns } from "../../../testing/property-runs.js";
import { createWindowFitter, fitWindow, type WindowFormat } from "../index.js";
import { conversationArbitrary, FORMATS, itemsOf, nativeProblems, render, requestPoints, requestTokens, TOOLS, type Conversation } from "./fit-fixtures.js";

const numRuns = propertyRuns(60);

function checkWindow(format: WindowFormat, input: unknown, out: unknown, budget: number, tools: typeof TOOLS): void {
  expect(requestTokens(format, out, "gpt-4o", tools)).toBeLessThanOrEqual(budget);
  expect(nativeProblems(format, out)).toEqual([]);
  const items = itemsOf(format, input);
  let last = -1;
  for (const item of itemsOf(format, out)) {
    const at = items.indexOf(item);
    if (at < 0) continue;
    expect(at).toBeGreaterThan(last);
    last = at;
  }
}

/** Runs `fit`; BUDGET_TOO_SMALL is an answer when even the smallest window cannot fit (its numbers say so). */
function fitted<T>(fit: () => T, budget: number): T | undefined {
  try {
    return fit();
  } catch (error) {
    const { code, details } = error as { code?: string; details?: { required?: number } };
    if (code !== "BUDGET_TOO_SMALL") throw error;
    expect(details?.required).toBeGreaterThan(budget);
    return undefined;
  }
}

const budgetArbitrary = fc.integer({ min: 1_200, max: 12_000 });
const withTools = fc.boolean();

describe("fitWindow properties", () => {
  it("every format: within budget (counted independently), valid for its API, pairs whole, the caller's objects kept, the input unchanged", () => {
    fc.assert(
      fc.property(conversationArbitrary(14), budgetArbitrary, withTools, (c: Conversation, budget, useTools) => {
        const tools = useTools ? TOOLS : [];
        for (const format of FORMATS) {
          const input = render(format, c);
          const before = JSON.stringify(input);
          const out = fitted(() => fitWindow(input, { budget, tools }), budget);
          expect(JSON.stringify(input)).toBe(before);
          if (out !== undefined) checkWindow(format, input, out, budget, tools);
        }
      }),
      { numRuns },
    );
  });

  it("a fitter kept across a growing conversation: each model call's window has the same properties, written incrementally as it would be whole, and the same with appendOnly", () => {
    fc.assert(
      fc.property(conversationArbitrary(24), budgetArbitrary, fc.constantFrom(...FORMATS), (c: Conversation, budget, format) => {
        const full = itemsOf(format, render(format, c));
        const envelope = render(format, { ...c, turns: [] });
        const fitter = createWindowFitter({ budget, tools: TOOLS });
        const appending = createWindowFitter({ budget, tools: TOOLS, appendOnly: true });
        for (const n of requestPoints(format, c)) {
          const items = full.slice(0, n);
          const input = Array.isArray(envelope) ? items : { ...(envelope as object), [format === "anthropic" ? "messages" : "input"]: items };
          const out = fitted(() => fitter.fit(input), budget);
          const appended = fitted(() => appending.fit(input), budget);
          expect(appended === undefined).toBe(out === undefined);
          if (out === undefined) {
            fitter.reset();
            appending.reset();
            continue;
          }
          itemsOf(format, appended).forEach((item, i) => expect(item).toStrictEqual(itemsOf(format, out)[i]));
          expect(itemsOf(format, appended)).toHaveLength(itemsOf(format, out).length);
          checkWindow(format, input, out, budget, TOOLS);
          // The same call again, written whole for the report: the same window (the caller's items the same objects).
          const again = fitter.fit(input, { report: true }).messages;
          expect(itemsOf(format, again)).toEqual(itemsOf(format, out));
          itemsOf(format, again).forEach((item, i) => {
            if (items.includes(item)) expect(itemsOf(format, out)[i]).toBe(item);
          });
        }
      }),
      { numRuns },
    );
  });
});
