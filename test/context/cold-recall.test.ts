/**
 * Recall over a packed history (cold-history.ts): the messages recall brings back are marked
 * copies (recall-output.ts), made once; their stored originals stay packed. A window must not
 * parse them again when nothing asks for their content: the window record remembers each stored
 * position's kind (StoredKinds), and recall finds a hit's position by the stored facts' id — a
 * plan made again from cached hits (a question reaching back is planned anew on every turn)
 * reads no packed message. Parsing one inflates its whole block: at 10k messages that was most
 * of a recall turn (issue 30). The windows and records stay those of a context that packs nothing.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { generateHistory } from "../bench/history-generator.js";

const REQUEST = "Fix the aging buckets that are off by one day around DST changes in dates.ts.";
const QUESTION = "Why does the stripe webhook time out under load?";
const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
/** A window record without its clock. */
const record = (context: HistoryContextManager) => {
  const { at: _at, ...rest } = context.windowRecords().at(-1)!;
  return json(rest);
};

afterEach(() => vi.restoreAllMocks());

describe("recall over packed messages", () => {
  it("a kept plan parses no packed message: same windows and records as without packing", async () => {
    const history = generateHistory({ count: 600, seed: 5, idPrefix: "r" });
    const open = (cold: boolean) =>
      new HistoryContextManager({ moduleName: "cold-recall", options: { strategies: [{ use: "recall" }] }, coldHistory: cold ? { hotTail: 40, blockSize: 8 } : false, initialMessages: history.slice() });
    const packed = open(true);
    const reference = open(false);
    await packed.searchIndex.catchUp();
    await reference.searchIndex.catchUp();
    const budget = 8_000;
    let seq = 0;
    const step = async (message: Message | undefined) => {
      if (message) {
        const m = { ...message, metadata: { id: `q-${++seq}`, timestamp: "2026-11-28T10:00:00.000Z" } } as Message;
        await packed.addMessage(m);
        await reference.addMessage(m);
      }
      await packed.coldHistory!.idle();
      // Every packed message parsed tells its block's owner (ColdHistory.revived).
      const revived = vi.spyOn(packed.coldHistory!, "revived");
      const window = await packed.getMessagesForRequest(budget);
      const parsed = revived.mock.calls.length;
      revived.mockRestore();
      expect(json(window)).toEqual(json(await reference.getMessagesForRequest(budget)));
      expect(record(packed)).toEqual(record(reference));
      return { window, parsed };
    };
    // A request (no question clause): a new plan recalls old (packed) turns.
    const first = await step({ role: "user", content: REQUEST });
    const recalled = first.window.filter((m) => m.metadata?.recalled === true);
    expect(recalled.length).toBeGreaterThan(3);
    expect(packed.coldHistory!.packed).toBeGreaterThan(history.length / 2);
    // An answer: the plan is kept; the recalled originals were packed again after the append.
    const kept = await step({ role: "assistant", content: "Looking at dates.ts." });
    expect(kept.window.filter((m) => m.metadata?.recalled === true).map((m) => m.metadata?.id)).toEqual(recalled.map((m) => m.metadata?.id));
    expect(kept.parsed).toBe(0);
    // A question reaching back for what the window lacks: a new search (which reads its hits) and plan.
    const asked = await step({ role: "user", content: QUESTION });
    expect(asked.window.filter((m) => m.metadata?.recalled === true).length).toBeGreaterThan(3);
    // Its answer: the plan is made again from the same (cached) hits, found by their ids (facts), not parsed.
    const answered = await step({ role: "assistant", content: "The webhook handler retries synchronously." });
    expect(answered.parsed).toBe(0);
    await packed.close();
    await reference.close();
  });
});
