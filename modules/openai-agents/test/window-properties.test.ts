import type { AgentInputItem } from "@openai/agents";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "@amplifier-ts/stores";
import { propertyRuns } from "../../../testing/property-runs.js";
import { AmplifierSession } from "../index.js";

/**
 * The window getItems() returns, over random agent histories and budgets (AMPLIFIER_PROPERTY_RUNS
 * cases, default 100 here):
 *
 * | property | meaning |
 * |---|---|
 * | items | every item is a stored item, unchanged (or a result the window cut: same call, shorter output), in stored order |
 * | pairs | every call has all its results after it, every result its call before it |
 * | reasoning | a reasoning item is followed by an item of its answer (another answer item, not a result or a turn) |
 * | starts | the window starts with a user item |
 * | budget | the window's tokens (the engine's report, our gpt-4o counter over the session's messages) fit historyBudget |
 * | newest | the newest user turn is in the window |
 */
const numRuns = propertyRuns(100);

type Turn = { calls: number; resultWords: number; reasoning: boolean; text: boolean };

const turnArb: fc.Arbitrary<Turn> = fc.record({ calls: fc.integer({ min: 0, max: 3 }), resultWords: fc.integer({ min: 1, max: 400 }), reasoning: fc.boolean(), text: fc.boolean() });

function itemsOf(turns: readonly Turn[]): AgentInputItem[] {
  return turns.flatMap((t, k) => {
    const ids = Array.from({ length: t.calls }, (_, c) => `call_${k}_${c}`);
    const answer: AgentInputItem[] = [];
    if (t.reasoning) answer.push({ type: "reasoning", id: `rs_${k}`, content: [{ type: "input_text", text: `think ${k}` }] });
    if (t.text || ids.length === 0) answer.push({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: `answer ${k}` }] });
    for (const id of ids) answer.push({ type: "function_call", callId: id, name: "f", arguments: `{"k":${k}}` });
    const results: AgentInputItem[] = ids.map((id) => ({ type: "function_call_result", callId: id, name: "f", status: "completed", output: `out ${k} `.repeat(t.resultWords) }));
    return [{ role: "user", content: `question ${k}` } as AgentInputItem, ...answer, ...results];
  });
}

describe("getItems() windows over random histories", () => {
  it("keep stored items in order, pairs whole, reasoning with its answer, a user start, under the budget", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(turnArb, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1_500, max: 12_000 }), async (turns, budget) => {
        const items = itemsOf(turns);
        const session = new AmplifierSession({ sessionId: "p", store: new MemoryStore(), budget, turnReserve: 0 });
        await session.addItems(items);
        const window = await session.getItems();
        const json = items.map((i) => JSON.stringify(i));
        // items: each is stored (or a cut result of a stored call), in stored order.
        let at = -1;
        for (const item of window) {
          const exact = json.indexOf(JSON.stringify(item), at + 1);
          const index = exact >= 0 ? exact : items.findIndex((s, i) => i > at && s.type === "function_call_result" && item.type === "function_call_result" && (s as { callId: string }).callId === (item as { callId: string }).callId);
          expect(index, JSON.stringify(item).slice(0, 120)).toBeGreaterThan(at);
          at = index;
        }
        // pairs
        const calls = new Set<string>();
        const answered = new Set<string>();
        for (const item of window) {
          if (item.type === "function_call") calls.add(item.callId);
          if (item.type === "function_call_result") {
            expect(calls.has(item.callId)).toBe(true);
            answered.add(item.callId);
          }
        }
        expect([...calls].filter((id) => !answered.has(id))).toEqual([]);
        // reasoning
        window.forEach((item, i) => {
          if (item.type === "reasoning") expect(["message", "function_call"]).toContain(window[i + 1]?.type);
        });
        expect(window[0]).toMatchObject({ role: "user" });
        expect(window).toContainEqual({ role: "user", content: `question ${turns.length - 1}` });
        expect((await session.windowReport()).tokens).toBeLessThanOrEqual(session.historyBudget);
      }),
      { numRuns },
    );
  }, Math.max(60_000, numRuns * 300));
});
