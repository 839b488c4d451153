/**
 * `assemble({ shared: true })` (shared-window.ts) sends exactly the window `assemble()` sends — the
 * same messages in the same order, the same report — only without copies, and extended from the
 * last window instead of rebuilt. Checked over random tool-using histories (both styles, crashes,
 * orphans, critical messages, huge results) that grow message by message, with windows taken at
 * random points, and truncations (a pipeline's rewrite) in between.
 * Cases: AMPLIFIER_PROPERTY_RUNS (default 300 here).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toolHistoryArbitrary } from "../../testing/arbitraries.js";
import { propertyRuns } from "../../testing/property-runs.js";
import { WindowAssembler, type AssembledWindow } from "../../modules/window/index.js";
import { fakeCounter } from "./fake-counter.js";

const numRuns = propertyRuns(300);

function same(shared: AssembledWindow, built: AssembledWindow): void {
  expect(shared.messages).toEqual(built.messages);
  const { durationMs: _a, ...a } = shared.report;
  const { durationMs: _b, ...b } = built.report;
  expect(a).toEqual(b);
}

describe("shared windows", () => {
  it("equal built windows, call after call, across truncations", () => {
    fc.assert(
      fc.property(
        toolHistoryArbitrary({ maxSteps: 40 }),
        fc.integer({ min: 300, max: 6_000 }),
        fc.array(fc.integer({ min: 0, max: 99 }), { minLength: 60, maxLength: 60 }),
        (history, budget, dice) => {
          const counter = fakeCounter();
          const shared = new WindowAssembler();
          const built = new WindowAssembler();
          let roll = 0;
          for (let i = 0; i < history.length; i++) {
            shared.append(history[i]!);
            built.append(history[i]!);
            const d = dice[roll++ % dice.length]!;
            if (d < 8 && i > 2) {
              // A pipeline rewrote its output from here: roll back and append again.
              const at = Math.max(1, i - 1 - (d % 3));
              shared.truncate(at);
              built.truncate(at);
              for (let j = at; j <= i; j++) {
                shared.append(history[j]!);
                built.append(history[j]!);
              }
            }
            if (d % 3 === 0) continue;
            let a: AssembledWindow | undefined;
            let b: AssembledWindow | undefined;
            let errorA: unknown;
            let errorB: unknown;
            try {
              a = shared.assemble({ budget, counter, shared: true });
            } catch (error) {
              errorA = error;
            }
            try {
              b = built.assemble({ budget, counter });
            } catch (error) {
              errorB = error;
            }
            expect((errorA as { code?: string } | undefined)?.code).toBe((errorB as { code?: string } | undefined)?.code);
            if (a && b) {
              same(a, b);
              // Not copies: the stored messages themselves.
              for (const m of a.messages) if (!m.metadata?.window) expect(history).toContain(m);
            }
          }
        },
      ),
      { numRuns },
    );
  });
});
