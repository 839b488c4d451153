/**
 * A stored message that carries its facts (packed by cold-history, loaded lazily by a store) is
 * named by them: the search's hits, its id and runId filters, and recall's smoothing neighbours
 * take the id from the facts (idOf), never by reading `metadata` — which, on a packed message,
 * parses it and inflates its whole block (issue 30: the recall turn at 10k messages).
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { MESSAGE_FACTS, factsOf } from "../../contracts/index.js";
import { HistorySearchIndex } from "../../modules/search/history-search-index.js";
import { recallCandidates } from "../../modules/search/recall-ranking.js";
import { rescore } from "../../modules/strategies/recall-scoring.js";

/** `message` as a stored message with facts; counts the reads of its `metadata` while `reads.on`. */
function withFacts(message: Message, reads: { on: boolean; n: number }): Message {
  const facts = factsOf(message);
  return new Proxy(message, {
    get(target, key, receiver) {
      if (key === MESSAGE_FACTS) return facts;
      if (key === "metadata" && reads.on) reads.n++;
      return Reflect.get(target, key, receiver);
    },
  });
}

const TEXTS = ["filler one", "the concert tickets are booked", "great, see you there at eight", "filler two", "the concert moved to nine", ...Array.from({ length: 20 }, (_, i) => `other talk ${i}`)];

describe("stored messages with facts are named by them", () => {
  const reads = { on: false, n: 0 };
  const history = TEXTS.map((text, i) => withFacts({ role: i % 2 === 0 ? "user" : "assistant", content: text, metadata: { id: `m${i}`, runId: i < 12 ? "r1" : "r2" } } as Message, reads));

  it("search hits, and its before / ids / runId filters, read no metadata", async () => {
    const index = new HistorySearchIndex(() => history);
    await index.catchUp();
    reads.on = true;
    reads.n = 0;
    const hits = await index.search("concert", { k: 5, before: "m10", filter: { role: ["user", "assistant"], ids: ["m1", "m4", "m20"], runId: "r1" } });
    expect(hits.map((h) => [h.id, h.index])).toEqual([
      ["m1", 1],
      ["m4", 4],
    ]);
    expect(reads.n).toBe(0);
    reads.on = false;
  });

  it("recall's smoothing names a hit's neighbours without reading their metadata", async () => {
    const index = new HistorySearchIndex(() => history);
    const options = { before: history.length };
    const hits = await recallCandidates(index, "tickets booked", 8, "recall", options);
    expect(hits.map((h) => h.hit.id)).toEqual(["m1"]);
    reads.on = true;
    reads.n = 0;
    const context = { source: index, searchOptions: options, wanted: 8, messages: history, positionOf: (h: { index: number }) => h.index, speakers: () => new Set<string>() };
    const out = await rescore(hits, "tickets booked", { dates: false, entities: false, smoothing: 0.5 }, context);
    expect(out.map((h) => h.hit.id)).toEqual(["m1", "m0", "m2"]);
    expect(reads.n).toBe(0);
    reads.on = false;
  });
});
