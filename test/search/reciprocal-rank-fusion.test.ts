import { describe, expect, it } from "vitest";
import { RRF_CONSTANT, reciprocalRankFusion } from "../../modules/search/reciprocal-rank-fusion.js";

describe("reciprocal rank fusion", () => {
  it("scores Σ 1/(60 + rank) over the rankings", () => {
    const fused = reciprocalRankFusion([["a", "b"], ["b", "c"]]);
    const score = Object.fromEntries(fused.map((f) => [f.id, f.score]));
    expect(score.a).toBeCloseTo(1 / (RRF_CONSTANT + 1));
    expect(score.b).toBeCloseTo(1 / (RRF_CONSTANT + 2) + 1 / (RRF_CONSTANT + 1));
    expect(score.c).toBeCloseTo(1 / (RRF_CONSTANT + 2));
  });

  it("ranks a document found by both rankings above one ranked first by only one", () => {
    expect(reciprocalRankFusion([["x", "both"], ["y", "both"]]).map((f) => f.id)[0]).toBe("both");
  });

  it("breaks ties by first appearance and handles empty rankings", () => {
    expect(reciprocalRankFusion([["a"], ["b"]]).map((f) => f.id)).toEqual(["a", "b"]);
    expect(reciprocalRankFusion([[], []])).toEqual([]);
  });
});
