/**
 * Properties of every window (contracts/WINDOW.md) over random tool-using histories: both tool
 * styles, critical and ephemeral messages, huge results, crashes mid-tool, orphans, random
 * budgets. Cases per property: AMPLIFIER_PROPERTY_RUNS (default 1,000 here).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { Message } from "../../contracts/generated/message.js";
import type { ToolDefinition } from "../../contracts/provider.js";
import { toolHistoryArbitrary } from "../../testing/arbitraries.js";
import { propertyRuns } from "../../testing/property-runs.js";
import { checkWindowInvariants, isInstruction } from "../../testing/window-invariants.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { WindowAssembler, type AssembledWindow, type WindowCounter } from "../../modules/window/index.js";
import { fakeCounter } from "./fake-counter.js";

const numRuns = propertyRuns(1_000);
/** Generous: the real-counter property runs ~4 ms per case on a 2-core machine. */
// A hang guard, not a speed check: 60 ms a case leaves room for a slow, shared machine.
const timeout = Math.max(20_000, numRuns * 60);
const TOOLS: ToolDefinition[] = [{ type: "function", function: { name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } } }];

type Counter = WindowCounter & { countMessages(ms: readonly Message[]): number; countRequest(ms: readonly Message[], tools?: readonly ToolDefinition[]): number };

/**
 * Assembles and checks one window. Returns undefined when BUDGET_TOO_SMALL was thrown — which must
 * happen only when the smallest window (the pinned messages, and the last prompt at its markers)
 * cannot fit: what it requires is never less than the pinned messages.
 */
function checkedWindow(
  assembler: WindowAssembler,
  history: readonly Message[],
  counter: Counter,
  budget: number,
  extra: { tools?: ToolDefinition[]; extraMessages?: Message[]; compactThreshold?: number; compactTarget?: number } = {},
): AssembledWindow | undefined {
  const before = JSON.stringify(history);
  const pinned = history.filter((m) => isInstruction(m) || m.metadata?.critical === true);
  const floor = counter.countMessages([...pinned, ...(extra.extraMessages ?? [])]) + counter.replyPriming + (extra.tools?.length ? counter.countTools(extra.tools) : 0);
  let window: AssembledWindow;
  try {
    window = assembler.assemble({ budget, counter, ...extra });
  } catch (e) {
    const { code, details } = e as { code?: string; details?: { required?: number } };
    if (code !== "BUDGET_TOO_SMALL") throw e;
    expect(details?.required).toBeGreaterThan(budget);
    expect(details?.required).toBeGreaterThanOrEqual(floor);
    return undefined;
  }
  expect(floor).toBeLessThanOrEqual(budget); // no window when the pinned messages alone do not fit
  expect(checkWindowInvariants(history, window.messages, { budget, counter, tools: extra.tools, extraMessages: extra.extraMessages })).toEqual([]);
  expect(window.report.windowTokens).toBe(counter.countRequest(window.messages, extra.tools));
  expect(JSON.stringify(history)).toBe(before);
  return window;
}

describe("window properties", () => {
  it(`every window keeps every invariant (the last prompt included), or BUDGET_TOO_SMALL only when the pinned messages and that prompt at their minimum do not fit (fake counter, ${numRuns} cases)`, () => {
    const counter = fakeCounter();
    fc.assert(
      fc.property(toolHistoryArbitrary(), fc.integer({ min: 30, max: 8_000 }), fc.boolean(), fc.boolean(), (history, budget, withTools, withExtra) => {
        const extraMessages: Message[] | undefined = withExtra ? [{ role: "system", content: "Injected reminder: keep it short.", metadata: { id: "inject" } }] : undefined;
        checkedWindow(new WindowAssembler(history), history, counter, budget, { tools: withTools ? TOOLS : undefined, extraMessages });
      }),
      { numRuns },
    );
  }, timeout);

  it(`the same with the real counter (gpt-4o, tiktoken) (${numRuns} cases)`, () => {
    const counter = getTokenCounter("gpt-4o");
    fc.assert(
      fc.property(toolHistoryArbitrary(), fc.integer({ min: 30, max: 8_000 }), (history, budget) => {
        checkedWindow(new WindowAssembler(history), history, counter, budget);
      }),
      { numRuns },
    );
  }, timeout);

  it(`an agent loop: after every appended message the window is valid, and a kept cut keeps firstKeptId (${numRuns} cases)`, () => {
    // Two counters (two models) take turns: each keeps its own sums through late results and critical results.
    const base = fakeCounter();
    const heavier: Counter = { ...fakeCounter("heavier"), countMessage: (m) => Math.ceil(base.countMessage(m) * 1.3) };
    heavier.countMessages = (ms) => ms.reduce((s, m) => s + heavier.countMessage(m), 0);
    heavier.countRequest = (ms, tools) => heavier.countMessages(ms) + heavier.replyPriming + (tools?.length ? heavier.countTools(tools) : 0);
    fc.assert(
      fc.property(
        toolHistoryArbitrary({ maxSteps: 30 }),
        fc.integer({ min: 200, max: 4_000 }),
        fc.constantFrom([0.9, 0.7], [1, 1], [0.8, 0.3]),
        (history, budget, [compactThreshold, compactTarget]) => {
          const assembler = new WindowAssembler();
          const stored: Message[] = [];
          let previous: AssembledWindow | undefined;
          for (const [i, m] of history.entries()) {
            stored.push(m);
            assembler.append(m);
            const counter = i % 3 === 2 ? heavier : base;
            const window = checkedWindow(assembler, stored, counter, budget, { compactThreshold, compactTarget });
            if (!window) {
              if (counter === base) return; // pinned messages only grow: every later window throws too
              previous = undefined;
              continue;
            }
            if (window.report.cutReason === "kept" && previous) {
              expect(window.report.cutIndex).toBe(previous.report.cutIndex);
              expect(window.report.firstKeptId).toBe(previous.report.firstKeptId);
              expect(window.report.windowTokens).toBeLessThanOrEqual(compactThreshold! * budget);
            }
            if (window.report.cutReason === "recut" && window.report.ladder === undefined) {
              expect(window.report.windowTokens).toBeLessThanOrEqual(compactTarget! * budget);
            }
            previous = window;
          }
        },
      ),
      { numRuns },
    );
  }, timeout);

  const pricedRuns = Math.max(100, Math.floor(numRuns / 20));
  it(`an agent loop with the real counter: windows priced by upper bounds (issue 31 item 3) are the very windows of exact counting, reports exact (${pricedRuns} cases)`, () => {
    const counter = getTokenCounter("gpt-4o");
    // The same counter without its bound: every unit is counted before a decision.
    const exactOnly: Counter = { ...counter, boundMessage: undefined };
    let priced = 0;
    let windows = 0;
    fc.assert(
      fc.property(
        toolHistoryArbitrary({ maxSteps: 30 }),
        fc.integer({ min: 200, max: 6_000 }),
        fc.constantFrom([0.9, 0.7], [1, 1], [0.8, 0.3]),
        fc.boolean(),
        (history, budget, [compactThreshold, compactTarget], shared) => {
          const bounded = new WindowAssembler();
          const exact = new WindowAssembler();
          const stored: Message[] = [];
          for (const m of history) {
            stored.push(m);
            bounded.append(m);
            exact.append(m);
            // Now and then a larger budget (another model, fewer tools): a kept cut may then give way to the whole history.
            const options = { budget: stored.length % 5 === 4 ? budget * 3 : budget, compactThreshold, compactTarget, shared };
            let a: AssembledWindow | undefined;
            let b: AssembledWindow | undefined;
            try {
              b = exact.assemble({ ...options, counter: exactOnly });
            } catch (e) {
              expect(() => bounded.assemble({ ...options, counter })).toThrow();
              continue;
            }
            a = bounded.assemble({ ...options, counter });
            windows++;
            if (bounded.pending > 0) priced++;
            expect(a.messages).toEqual(b.messages);
            for (const key of ["cutReason", "cutIndex", "firstKeptId", "windowMessages", "windowTokens", "historyTokens", "historyTokensExact", "truncated"] as const) {
              expect(a.report[key], key).toEqual(b.report[key]);
            }
            expect(a.report.windowTokens).toBe(counter.countRequest(a.messages));
            expect(a.report.windowTokens).toBeLessThanOrEqual(options.budget);
            // Idle work now and then: what was priced gets counted.
            if (stored.length % 4 === 0) bounded.settle();
          }
        },
      ),
      { numRuns: pricedRuns },
    );
    // The bounds were used (else the property would compare exact with exact).
    expect(priced).toBeGreaterThan(windows / 10);
  }, timeout);

  it(`explain accounts for every stored message once, and its kept decisions are the window (${numRuns} cases)`, () => {
    const counter = fakeCounter();
    fc.assert(
      fc.property(toolHistoryArbitrary(), fc.integer({ min: 100, max: 8_000 }), (history, budget) => {
        let window: AssembledWindow;
        try {
          window = new WindowAssembler(history).assemble({ budget, counter, explain: true });
        } catch {
          return;
        }
        const decisions = window.report.decisions!;
        expect(decisions.filter((d) => d.index >= 0).map((d) => d.index)).toEqual(history.map((_, i) => i));
        const sent = decisions.filter((d) => d.action !== "dropped");
        expect(sent.length).toBe(window.messages.length);
        expect(sent.reduce((sum, d) => sum + (d.tokens ?? 0), 0) + counter.replyPriming).toBe(window.report.windowTokens);
        expect(decisions.filter((d) => d.action === "dropped" && d.index >= 0).length).toBe(window.report.removed);
      }),
      { numRuns },
    );
  }, timeout);
});
