/**
 * Score mixing (issue 30), the alternative to reciprocal rank fusion (reciprocal-rank-fusion.ts)
 * for the lexical and dense sides of a hybrid search: each side's scores are standardised over the
 * candidates (z = (score − mean) / standard deviation), and a candidate's mixed score is
 * z(lexical) + weight × z(dense). Unlike RRF it keeps how far apart the scores are: a message far
 * ahead on one side is not levelled with the next by its rank.
 *
 * | input                         | how it is read                                                                                   |
 * |-------------------------------|--------------------------------------------------------------------------------------------------|
 * | lexical score                 | BM25 of the message for the query; 0 for a candidate of the dense side that matched no term      |
 * | dense score                   | cosine of the message's vector with the query's; undefined when the message has no vector yet: its dense z is 0 (the mean), so it ranks by its lexical score |
 * | a side whose scores are all equal | its z is 0 for every candidate (it orders nothing)                                          |
 * | the mixed score               | shifted so the lowest candidate scores 0 (what follows multiplies and adds scores: recall's tool-output weight, smoothing; they need scores ≥ 0, as BM25's and RRF's are) |
 */

/** How a hybrid search combines its lexical and dense rankings (SearchOptions.mixing). */
export type ScoreMixing = "rrf" | "zscore";

/** The default weight of the dense side in z-score mixing (against the lexical side's 1). */
export const DEFAULT_DENSE_WEIGHT = 1;

/** Standard scores of `values` (undefined entries: 0, and left out of the mean and deviation). */
export function standardScores(values: readonly (number | undefined)[]): number[] {
  let n = 0;
  let sum = 0;
  for (const v of values) if (v !== undefined) (n++, (sum += v));
  if (n === 0) return values.map(() => 0);
  const mean = sum / n;
  let squares = 0;
  for (const v of values) if (v !== undefined) squares += (v - mean) ** 2;
  const deviation = Math.sqrt(squares / n);
  if (!(deviation > 1e-12)) return values.map(() => 0);
  return values.map((v) => (v === undefined ? 0 : (v - mean) / deviation));
}

/**
 * Mixed scores of candidates (index i: `lexical[i]`, `dense[i]`): z(lexical) + denseWeight × z(dense),
 * shifted so the lowest is 0 (see the file comment).
 */
export function zScoreMix(lexical: readonly number[], dense: readonly (number | undefined)[], denseWeight = DEFAULT_DENSE_WEIGHT): number[] {
  const zl = standardScores(lexical);
  const zd = standardScores(dense);
  const mixed = zl.map((z, i) => z + denseWeight * zd[i]!);
  const low = mixed.reduce((m, x) => Math.min(m, x), Infinity);
  return mixed.map((x) => x - low);
}
