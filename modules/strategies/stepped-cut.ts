/**
 * Cache-friendly cuts: every cutting strategy moves its cut in STEPS (threshold → target), so
 * consecutive windows share a prefix and the provider's prompt cache keeps hitting.
 *
 * | situation                                                   | cut                               |
 * |-------------------------------------------------------------|-----------------------------------|
 * | everything fits the limit                                   | none (and the remembered cut is forgotten) |
 * | the remembered cut is still in the input and what it keeps fits the limit | kept where it is      |
 * | otherwise                                                   | a NEW cut, as early as possible such that what it keeps fits `targetRatio` × the limit |
 *
 * The cut is remembered by the metadata.id of the first message of its unit, so it survives
 * appends (and a strategy instance is per context manager). `targetRatio` = 1 gives a plain
 * sliding cut (moves every turn — no prefix kept).
 */
import type { HistoryUnits } from "./history-units.js";

export class SteppedCut {
  #firstId: string | undefined;
  /** The unit #firstId was found at last time: checked first (units keep their index while the input grows). */
  #hint: number | undefined;

  /** `fits(from, scale)`: what a cut at unit `from` keeps is within scale × the limit. Monotone in `from`. */
  decide(units: HistoryUnits, fits: (from: number, scale: number) => boolean, targetRatio: number): number {
    if (fits(0, 1)) {
      this.#firstId = undefined;
      return 0;
    }
    if (this.#firstId !== undefined) {
      const previous = units.unitWithFirstId(this.#firstId, this.#hint);
      this.#hint = previous;
      if (previous !== undefined && fits(previous, 1)) return previous;
    }
    const cut = lowestFitting(units.length, (from) => fits(from, targetRatio));
    this.#firstId = units.firstIdOf(cut);
    this.#hint = cut;
    return cut;
  }

  forget(): void {
    this.#firstId = undefined;
    this.#hint = undefined;
  }
}

/** The lowest `from` in [0, n] with `ok(from)` (n when none below does): binary search on a monotone predicate. */
export function lowestFitting(n: number, ok: (from: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ok(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Suffix sums of a per-unit weight, critical units counting 0 (they are kept wherever the cut is). */
export function suffixSums(units: HistoryUnits, weight: (u: number) => number): Float64Array {
  const sums = new Float64Array(units.length + 1);
  for (let u = units.length - 1; u >= 0; u--) sums[u] = sums[u + 1]! + (units.units[u]!.critical ? 0 : weight(u));
  return sums;
}
