/**
 * Where a window starts: the cut, chosen with hysteresis so the provider's prompt cache keeps
 * hitting. W(c) is the request a window cut at unit c would send, B the budget, θ the compact
 * threshold, τ the compact target; cut points are the turn starts (user messages with content
 * besides tool results, each with the hook notes stored right before it), and no window starts
 * before the first one.
 *
 * | rule | when                                                         | cut                         | reason   |
 * |------|--------------------------------------------------------------|-----------------------------|----------|
 * | 1    | W(first cut point) ≤ θ·B — the whole history fits            | the first cut point         | `fits`   |
 * | 2    | the previous cut is still a cut point and W(previous) ≤ θ·B  | the previous cut, unchanged | `kept`   |
 * | 3    | some cut point has W ≤ τ·B                                   | the earliest such one (one large step) | `recut` |
 * | 3b   | rule 3's cut leaves less than τ·B/2 (the turn before it is large) | the earliest unit inside that turn with W + placeholder ≤ τ·B | `recut` |
 * | 4    | else, W(latest cut point) ≤ B                                | the latest cut point        | `latest` |
 * | 5    | else                                                         | the latest cut point, and the ladder shrinks the rest (ladder.ts) | `ladder` |
 *
 * Rule 3b keeps a window from collapsing to the newest turn alone when the turn before it is
 * larger than τ·B: the window starts inside that turn (at a unit: an assistant message or a whole
 * call+results group), behind the placeholder user message (window-builder.ts), instead of
 * sending a few hundred tokens while the history holds tens of thousands.
 *
 * So a growing history is not cut until it passes θ·B, then cut down to τ·B; the cut then stays
 * put — consecutive windows share their first kept message — until the window passes θ·B again.
 * W is non-increasing in c, and the ledger counts from the newest unit down only until a rule is
 * decided, so a decision costs O(window), never O(history).
 */
import { lowerBound } from "./history-index.js";

export type CutReason = "fits" | "kept" | "recut" | "latest" | "ladder";

export interface CutInput {
  /** Unit indices a window may start at, ascending (turn starts; `[0]` when the history has none). */
  readonly cutPoints: readonly number[];
  /** The cut of the previous window, if any. */
  readonly previous: number | undefined;
  readonly budget: number;
  readonly threshold: number;
  readonly target: number;
  /** Tokens every window costs besides its non-critical units (instructions, critical units, priming, tools, request-only messages). */
  readonly fixedTokens: number;
  readonly ledger: {
    reachDown(limit: number, floor: number): number;
    suffixTokens(c: number): number;
  };
  /** Tokens of the placeholder a window starting at unit c needs (0 for a turn start); omitted: rule 3b is off. */
  readonly placeholderAt?: (c: number) => number;
}

export interface CutDecision {
  /** Unit index of the first kept non-critical unit. */
  readonly cut: number;
  readonly reason: CutReason;
}

export function decideCut(input: CutInput): CutDecision {
  const { cutPoints, previous, budget, fixedTokens, ledger } = input;
  const first = cutPoints[0];
  const last = cutPoints.at(-1);
  if (first === undefined || last === undefined) return { cut: 0, reason: "fits" };
  const high = input.threshold * budget;
  const low = input.target * budget;
  const w = (c: number) => fixedTokens + ledger.suffixTokens(c);

  // Count down from the newest unit until the window passes θ·B (or the first cut point is reached).
  const base = ledger.reachDown(high - fixedTokens, first);
  if (base <= first && w(first) <= high) return { cut: first, reason: "fits" };
  const ph = input.placeholderAt ?? (() => 0);
  if (previous !== undefined && previous >= base && previous >= first && w(previous) + ph(previous) <= high) {
    return { cut: previous, reason: "kept" };
  }
  // Every cut point below base costs more than θ·B ≥ τ·B: search the counted ones only.
  let lo = lowerBound(cutPoints, Math.max(base, first));
  let hi = cutPoints.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (w(cutPoints[mid]!) <= low) hi = mid;
    else lo = mid + 1;
  }
  if (lo < cutPoints.length) {
    const c = cutPoints[lo]!;
    const before = lo > 0 ? cutPoints[lo - 1]! : -1;
    if (input.placeholderAt === undefined || w(c) >= low / 2 || before < 0) return { cut: c, reason: "recut" };
    // Rule 3b: the earliest unit u in (before, c) with W(u) + placeholder ≤ τ·B. Units below base
    // cost more than θ·B; W is non-increasing, so a binary search over the counted ones finds it.
    let a = Math.max(base, before + 1);
    let b = c;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (w(mid) + ph(mid) <= low) b = mid;
      else a = mid + 1;
    }
    return { cut: a, reason: "recut" };
  }
  // Nothing reaches τ·B. Does the latest turn fit at all? Count it only as far as B.
  const reached = ledger.reachDown(budget - fixedTokens, last);
  return reached <= last && w(last) <= budget ? { cut: last, reason: "latest" } : { cut: last, reason: "ladder" };
}
