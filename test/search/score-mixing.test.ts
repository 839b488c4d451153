import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import type { Embedder } from "../../contracts/search.js";
import { HistorySearchIndex } from "../../modules/search/history-search-index.js";
import { reciprocalRankFusion } from "../../modules/search/reciprocal-rank-fusion.js";
import { standardScores, zScoreMix } from "../../modules/search/score-mixing.js";

describe("z-score mixing (issue 30)", () => {
  it("standardises each side: mean 0, deviation 1; a side of equal scores orders nothing; a missing dense score is the mean", () => {
    const z = standardScores([1, 2, 3, 6]);
    expect(z.reduce((s, x) => s + x, 0)).toBeCloseTo(0);
    expect(Math.sqrt(z.reduce((s, x) => s + x * x, 0) / z.length)).toBeCloseTo(1);
    expect(standardScores([4, 4, 4])).toEqual([0, 0, 0]);
    expect(standardScores([1, undefined, 3])).toEqual([-1, 0, 1]);
    expect(standardScores([undefined, undefined])).toEqual([0, 0]);
  });

  it("keeps a clear lexical lead that RRF levels by rank: the mixed scores are ≥ 0 and the lowest is 0", () => {
    // Candidates A, B, C, D and four more. BM25: A far ahead of B; the rest match no term. Cosine: B, C, D, A well above the rest.
    const lexical = [10, 1, 0, 0, 0, 0, 0, 0];
    const dense = [0.7, 1, 0.9, 0.8, 0, 0.05, 0.1, 0];
    const rrf = reciprocalRankFusion([["A", "B"], ["B", "C", "D", "A", "G", "F"]]).map((f) => f.id);
    expect(rrf[0]).toBe("B"); // rank 2 + rank 1 beats rank 1 + rank 4, however far A was ahead
    const mixed = zScoreMix(lexical, dense);
    const order = ["A", "B", "C", "D", "E", "F", "G", "H"].map((id, i) => [id, mixed[i]!] as const).sort((a, b) => b[1] - a[1]).map(([id]) => id);
    expect(order[0]).toBe("A");
    expect(Math.min(...mixed)).toBe(0);
    // The dense weight moves it: weighted enough, the dense side's favourite wins.
    const dense10 = zScoreMix(lexical, dense, 10);
    expect(dense10.indexOf(Math.max(...dense10))).toBe(1);
    // Weight 0: the lexical order alone.
    expect(zScoreMix(lexical, dense, 0)).toEqual(standardScores(lexical).map((z) => z - Math.min(...standardScores(lexical))));
  });

  it("in the index: mixing \"zscore\" puts the strong lexical match first where RRF puts the dense side's favourite; bad options are typed errors", async () => {
    let seq = 0;
    const msg = (content: string): Message => ({ role: "user", content, metadata: { id: `m${++seq}` } });
    const history: Message[] = [];
    for (let i = 0; i < 40; i++) history.push(msg(`unrelated chatter about lunch number ${i}`));
    const strong = msg("the quokka zebra quokka zebra sighting"); // BM25: both rare terms, twice
    const weak = msg("a zebra was mentioned once somewhere in this rather long and winding message about many other things entirely");
    const near1 = msg("cousin story one");
    const near2 = msg("cousin story two");
    history.splice(5, 0, strong);
    history.splice(15, 0, weak);
    history.splice(25, 0, near1);
    history.splice(35, 0, near2);
    // A toy embedder: the query and the four messages point the same way (weak nearest, strong fourth); the rest elsewhere.
    const direction: [RegExp, number][] = [[/winding/, 0], [/cousin story one/, 0.3], [/cousin story two/, 0.6], [/sighting/, 1]];
    const embedder: Embedder = {
      name: "toy",
      dimensions: 3,
      embed: async (texts) =>
        texts.map((t) => {
          if (/^quokka zebra$/.test(t.trim())) return Float32Array.from([1, 0, 0]);
          const d = direction.find(([re]) => re.test(t));
          return d ? Float32Array.from([1, d[1], 0]) : Float32Array.from([0, 0, 1]);
        }),
    };
    const index = new HistorySearchIndex(() => history, { embedder });
    await index.indexReady();
    const rrf = await index.search("quokka zebra", { k: 4 });
    const zscore = await index.search("quokka zebra", { k: 4, mixing: "zscore" });
    expect(rrf[0]!.id).toBe(weak.metadata!.id);
    expect(zscore[0]!.id).toBe(strong.metadata!.id);
    expect(zscore.every((h) => h.score >= 0)).toBe(true);
    expect(await index.search("quokka zebra", { k: 4, mixing: "rrf" })).toEqual(rrf);
    // Weighted towards the dense side, z-score mixing follows it too.
    expect((await index.search("quokka zebra", { k: 4, mixing: "zscore", denseWeight: 10 }))[0]!.id).toBe(weak.metadata!.id);
    // Without an embedder the option changes nothing (plain BM25).
    const lexical = new HistorySearchIndex(() => history);
    expect(await lexical.search("quokka zebra", { k: 4, mixing: "zscore" })).toEqual(await lexical.search("quokka zebra", { k: 4 }));
    await expect(index.search("quokka", { mixing: "sum" as never })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "mixing" }) });
    await expect(index.search("quokka", { denseWeight: -1 })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "denseWeight" }) });
  });
});
