/**
 * Reciprocal rank fusion (Cormack et al. 2009): score(d) = Σ over rankings of 1 / (c + rank),
 * rank from 1. Scale-free — BM25 scores and cosine similarities need no normalisation — and a
 * document ranked well by both beats one ranked first by only one. c = 60 as in the paper.
 */
export const RRF_CONSTANT = 60;

/** Fused ranking of ids, best first (ties: first seen first). */
export function reciprocalRankFusion<Id>(rankings: readonly (readonly Id[])[], c = RRF_CONSTANT): { id: Id; score: number }[] {
  const scores = new Map<Id, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (c + i + 1)));
  }
  return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
