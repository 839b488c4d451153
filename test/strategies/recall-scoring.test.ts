import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { HistorySearchIndex } from "../../modules/search/history-search-index.js";
import { recallCandidates } from "../../modules/search/recall-ranking.js";
import { dateMatches, datePartsOf, namesIn, rescore } from "../../modules/strategies/recall-scoring.js";
import { recallOptions } from "../../modules/strategies/recall.js";
import { createStrategy } from "../../modules/strategies/registry.js";
import { assistant, contextFor, user } from "../../modules/strategies/test/helpers.js";

const at = (text: string, iso: string, name?: string): Message => ({ role: "user", content: text, ...(name ? { name } : {}), metadata: { id: `m-${text.slice(0, 12)}-${iso}`, timestamp: iso } });

describe("recall scoring: date parts", () => {
  it("reads month names, weekdays, years and a day with its month; 'may' only next to a number", () => {
    expect(datePartsOf("What did we do last June?")).toEqual({ month: 5 });
    expect(datePartsOf("anything on Monday in 2023")).toEqual({ weekday: 1, year: 2023 });
    expect(datePartsOf("the party on 31 December")).toEqual({ month: 11, day: 31 });
    expect(datePartsOf("May 5 was busy")).toEqual({ month: 4, day: 5 });
    expect(datePartsOf("you may want to check")).toBeUndefined();
    expect(datePartsOf("how are you")).toBeUndefined();
  });

  it("counts the parts a message's timestamp has, 0 when one differs or there is no date", () => {
    const m = at("hi", "2023-06-05T10:00:00.000Z"); // a Monday
    expect(dateMatches(m, { month: 5 })).toBe(1);
    expect(dateMatches(m, { month: 5, day: 5, weekday: 1, year: 2023 })).toBe(4);
    expect(dateMatches(m, { month: 5, year: 2024 })).toBe(0);
    expect(dateMatches(user("no date"), { month: 5 })).toBe(0);
  });

  it("brings a turn dated as asked above an equal lexical match of another date", async () => {
    const history = [at("we went hiking in the hills", "2023-05-20T10:00:00.000Z"), ...Array.from({ length: 30 }, (_, i) => at(`filler talk number ${i}`, "2023-06-01T10:00:00.000Z")), at("we went hiking by the lake", "2023-06-10T10:00:00.000Z")];
    const index = new HistorySearchIndex(() => history);
    const query = "Where did we go hiking in June?";
    const options = { before: history.length };
    const hits = await recallCandidates(index, query, 8, "recall", options);
    const context = { source: index, searchOptions: options, wanted: 8, messages: history, positionOf: (h: { index: number }) => h.index, speakers: () => new Set<string>() };
    const out = await rescore(hits, query, { dates: true, entities: false, smoothing: 0 }, context);
    expect(out[0]!.hit.message.content).toBe("we went hiking by the lake");
    expect(out[0]!.notes.join()).toMatch(/dated as asked/);
  });
});

describe("recall scoring: entities and smoothing", () => {
  it("finds names a question uses (not its first word unless a speaker), without months", () => {
    expect(namesIn("What did Priya say about Kafka in June?", new Set())).toEqual(["priya", "kafka"]);
    expect(namesIn("Kevin went where?", new Set(["kevin"]))).toEqual(["kevin"]);
    expect(namesIn("where did kevin go", new Set(["kevin"]))).toEqual(["kevin"]);
  });

  it("favours the named speaker's turns", async () => {
    const history: Message[] = [
      { role: "user", name: "Ana", content: "I love painting landscapes", metadata: { id: "a1" } },
      { role: "assistant", name: "Ben", content: "I love painting portraits", metadata: { id: "b1" } },
      ...Array.from({ length: 30 }, (_, i): Message => ({ role: "user", name: "Ana", content: `filler ${i}`, metadata: { id: `f${i}` } })),
    ];
    const index = new HistorySearchIndex(() => history, { speakers: false });
    const query = "What does Ben love painting?";
    const options = { before: history.length };
    const hits = await recallCandidates(index, query, 8, "recall", options);
    const context = { source: index, searchOptions: options, wanted: 8, messages: history, positionOf: (h: { index: number }) => h.index, speakers: () => new Set(["ana", "ben"]) };
    const out = await rescore(hits, query, { dates: false, entities: true, smoothing: 0 }, context);
    expect(out[0]!.hit.id).toBe("b1");
  });

  it("smoothing makes the neighbour of a strong hit a candidate and adds the fraction of the best neighbour's score", async () => {
    const history: Message[] = [user("filler one"), user("the concert tickets are booked"), assistant("great, see you there at eight"), user("filler two"), ...Array.from({ length: 20 }, (_, i) => user(`other ${i}`))];
    const index = new HistorySearchIndex(() => history);
    const query = "concert tickets";
    const options = { before: history.length };
    const hits = await recallCandidates(index, query, 8, "recall", options);
    expect(hits.map((h) => h.hit.index)).toEqual([1]);
    const context = { source: index, searchOptions: options, wanted: 8, messages: history, positionOf: (h: { index: number }) => h.index, speakers: () => new Set<string>() };
    const out = await rescore(hits, query, { dates: false, entities: false, smoothing: 0.3 }, context);
    expect(out.map((h) => h.hit.index)).toEqual([1, 0, 2]);
    expect(out[1]!.score).toBeCloseTo(0.3 * hits[0]!.score);
  });
});

describe("recall options of issue 30", () => {
  it("validates them and rejects out-of-range values", () => {
    expect(recallOptions.parse({ focus: {} }).focus).toEqual({ hits: 3, radius: 2, rest: "single" });
    expect(() => recallOptions.parse({ smoothing: 2 })).toThrow();
    expect(() => recallOptions.parse({ focus: { radius: 9 } })).toThrow();
  });

  it("focus: the best hit comes with its neighbours ±2", async () => {
    const filler = (n: number, tag: string) => Array.from({ length: n }, (_, i) => [user(`${tag}${i} let us continue with the next routine step of the chore list`), assistant(`${tag}${i} done with that routine step, moving on to the following chore`)]).flat();
    const around = [user("we talked about the garden"), assistant("the roses need water"), user("the staging database listens on port 5433"), assistant("noted"), user("and the fence needs paint")];
    // Many weaker hits: placed first, each alone, they would take the budget the best hit's context needs.
    const weak = Array.from({ length: 40 }, (_, i) => [user(`w${i} a staging note about the weekly report and its many long appendix tables: ${"rows of quarterly figures, ".repeat(2)}`), assistant(`w${i} noted, the appendix tables of the weekly report are long`)]).flat();
    const history = [...filler(5, "a"), ...around, ...weak, ...filler(10, "b"), user("Which port does the staging database listen on?")];
    const keptBy = async (options: object) => new Set((await createStrategy({ use: "recall", ...options }).compact(history, contextFor(1_500))).map((m) => m.metadata?.id));
    const focused = await keptBy({ focus: { hits: 1, radius: 2 } });
    for (const m of around) expect(focused).toContain(m.metadata!.id);
    // Fewer hits than the default places: the weak ones come as single turns, after the context.
    const plain = await keptBy({});
    const recalledWeak = (kept: Set<unknown>) => weak.filter((m) => kept.has(m.metadata!.id)).length;
    expect(recalledWeak(focused)).toBeLessThan(recalledWeak(plain));
  });
});
