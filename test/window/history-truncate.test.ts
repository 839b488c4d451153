/**
 * HistoryIndex.truncate and WindowAssembler.truncate (issue 20): a compaction pipeline whose
 * output is rewritten from position p rolls the window engine back to p instead of rebuilding it.
 * Truncating then appending must give exactly the index a fresh build gives, and every window
 * after a truncate must keep every invariant of contracts/WINDOW.md.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { HistoryIndex } from "../../modules/window/history-index.js";
import { WindowAssembler } from "../../modules/window/window-assembler.js";
import { toolHistoryArbitrary } from "../../testing/arbitraries.js";
import { propertyRuns } from "../../testing/property-runs.js";
import { checkWindowInvariants } from "../../testing/window-invariants.js";
import { fakeCounter } from "./fake-counter.js";

const runs = Math.max(50, Math.floor(propertyRuns(1_000) / 5));

/** Everything an index says, as plain data (units with their members, kinds, flags, emitted results). */
function shape(index: HistoryIndex): unknown {
  return {
    length: index.length,
    instructions: [...index.instructions],
    turnStarts: [...index.turnStarts],
    criticalUnits: [...index.criticalUnits],
    orphanAt: [...index.orphanAt],
    orphanIds: index.orphanIds.map((ids) => [...ids]),
    units: index.units.map((u) => ({
      kind: u.kind,
      critical: u.critical,
      notes: u.isNoteRun,
      members: u.members.map((m) => [m.stored, m.critical, m.result, JSON.stringify(m.message)]),
      emitted: u.emitted().map((m) => JSON.stringify(m.message)),
      calls: u.calls.map((c) => [c.id, u.isAnswered(c.id)]),
    })),
  };
}

describe("HistoryIndex.truncate", () => {
  it("property: truncating at any sequence of positions and appending again (the same or other messages) equals a fresh index of the result", () => {
    fc.assert(
      fc.property(toolHistoryArbitrary({ maxSteps: 30 }), toolHistoryArbitrary({ maxSteps: 10 }), fc.array(fc.tuple(fc.nat(), fc.boolean()), { minLength: 1, maxLength: 5 }), (history, other, steps) => {
        const index = new HistoryIndex();
        let current: Message[] = [];
        for (const m of history) index.append(m);
        current = history.slice();
        for (const [at, same] of steps) {
          const p = at % (current.length + 1);
          index.truncate(p);
          current = current.slice(0, p);
          expect(shape(index)).toEqual(shape(fresh(current)));
          // Append again: the very same continuation, or messages of another history (new ids, new pairings).
          const tail = same ? history.slice(p) : other;
          for (const m of tail) index.append(m);
          current = current.concat(tail);
          expect(shape(index)).toEqual(shape(fresh(current)));
        }
      }),
      { numRuns: runs },
    );
  });

  it("reports the lowest unit that lost a member or was removed", () => {
    const index = new HistoryIndex();
    const seen: number[] = [];
    const messages: Message[] = [
      { role: "user", content: "one", metadata: { id: "u1" } },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }], metadata: { id: "a1" } },
      { role: "user", content: "between", metadata: { id: "u2" } },
      { role: "tool", tool_call_id: "c1", content: "late result", metadata: { id: "r1" } },
    ];
    for (const m of messages) index.append(m);
    index.onUnitChanged = (u) => seen.push(u);
    index.truncate(3); // the late result leaves group 1
    expect(seen).toEqual([1]);
    expect(index.units[1]!.isAnswered("c1")).toBe(false);
    index.truncate(2); // unit 2 (the user turn) goes
    expect(seen).toEqual([1, 2]);
    expect(index.units.length).toBe(2);
  });
});

describe("WindowAssembler.truncate", () => {
  it("recounts a unit that replaced a removed one at the same index (sums above the ledger's anchor are dropped)", () => {
    const counter = fakeCounter();
    const call = (id: string, critical = false): Message => ({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "read", arguments: "{}" } }], metadata: { id: `a-${id}`, ...(critical ? { critical: true } : {}) } });
    const result = (id: string, text: string, critical = false): Message => ({ role: "tool", tool_call_id: id, content: text, metadata: { id: `r-${id}`, ...(critical ? { critical: true } : {}) } });
    const history: Message[] = [
      { role: "system", content: "You are careful.", metadata: { id: "s", critical: true } },
      { role: "assistant", content: "hello", metadata: { id: "a0", critical: true } },
      call("c1", true),
      result("c1", "one ".repeat(20), true),
      result("gone", "stale output", false),
      call("c2"),
      result("c2", "two", true),
    ];
    const assembler = new WindowAssembler(history.slice(0, 4));
    assembler.assemble({ budget: 3_000, counter });
    for (const m of history.slice(4)) assembler.append(m);
    assembler.assemble({ budget: 3_000, counter });
    // Back to the first three; the group of c2 comes back without its (critical) result: a new, non-critical unit 2.
    assembler.truncate(3);
    for (const m of history.slice(3, 6)) assembler.append(m);
    const { messages, report } = assembler.assemble({ budget: 3_000, counter });
    expect(report.windowTokens).toBe(counter.countRequest(messages));
    expect(messages.map((m) => JSON.stringify(m))).toEqual(new WindowAssembler(history.slice(0, 6)).assemble({ budget: 3_000, counter }).messages.map((m) => JSON.stringify(m)));
  });

  it("property: windows after truncate + append keep every invariant, and equal a fresh assembler's while nothing was cut", () => {
    const counter = fakeCounter();
    fc.assert(
      fc.property(toolHistoryArbitrary({ maxSteps: 30 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 8 })), { minLength: 1, maxLength: 5 }), fc.integer({ min: 3_000, max: 60_000 }), (history, steps, budget) => {
        const assembler = new WindowAssembler();
        let stored: Message[] = [];
        let next = 0;
        for (const [at, grow] of steps) {
          for (let j = 0; j < grow && next < history.length; j++) {
            assembler.append(history[next]!);
            stored.push(history[next++]!);
          }
          const p = at % (stored.length + 1);
          assembler.truncate(p);
          stored = stored.slice(0, p);
          // The same continuation again, as a pipeline's rewritten output usually is.
          next = p;
          for (let j = 0; j < 3 && next < history.length; j++) {
            assembler.append(history[next]!);
            stored.push(history[next++]!);
          }
          let window: Message[];
          let windowTokens: number;
          try {
            ({ messages: window, report: { windowTokens } } = assembler.assemble({ budget, counter }));
          } catch (error) {
            // A budget below the minimum is a typed error for a fresh assembler too.
            expect(() => new WindowAssembler(stored).assemble({ budget, counter })).toThrow();
            continue;
          }
          expect(checkWindowInvariants(stored, window, { budget, counter })).toEqual([]);
          // The sums the cut was priced on are exact after the rollback: the report counts what is sent.
          expect(windowTokens).toBe(counter.countRequest(window));
          const fresh = new WindowAssembler(stored).assemble({ budget, counter });
          if (fresh.report.cutReason === "fits") expect(window.map((m) => JSON.stringify(m))).toEqual(fresh.messages.map((m) => JSON.stringify(m)));
        }
      }),
      { numRuns: runs },
    );
  });
});

function fresh(messages: readonly Message[]): HistoryIndex {
  const index = new HistoryIndex();
  for (const m of messages) index.append(m);
  return index;
}
