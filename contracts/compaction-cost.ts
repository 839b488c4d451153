/**
 * The context manager's compaction decision under config `compactionPolicy: "cost"` (issue 29 §2),
 * carried by `context:pre_compact` / `context:post_compact` (`decision`) and by
 * `explainLastWindow().compactionDecision`. USD at the model registry's list prices; the
 * arithmetic is modules/context-manager/compaction-cost.ts.
 */

/** One plan's cost over the horizon, by part (USD). */
export interface CompactionPlanCost {
  /** Cache reads of the carried window, turn by turn. */
  readsUsd: number;
  /** Summarizer calls of its compactions (0 when the compaction is a cut). */
  summarizerUsd: number;
  /** The new prefixes written to the cache after its compactions. */
  cacheWriteUsd: number;
  /** What the comparison uses: the sum of the parts (mode "horizon"), less averageTurnUsd per turn (mode "cycle"). */
  totalUsd: number;
  /** Turns (0 = this request) at which the plan compacts (mode "cycle": the defer plan's forced one, after its turns). */
  compactions: number[];
  /** Turns the plan was charged for. */
  turns?: number;
}

export interface CompactionCostDecision {
  policy: "cost";
  /** The window is compacted at this request. */
  compact: boolean;
  /** The window would not fit the budget uncut: compacted whatever the cost (now / defer are absent). */
  forced?: boolean;
  horizonTurns: number;
  /** Tokens the request would send with the cut kept (W). */
  windowTokens: number;
  /** Tokens after a compaction (T = compactTarget × budget). */
  targetTokens: number;
  budget: number;
  /** The history's mean growth per request, in tokens. */
  growthPerTurn: number;
  /** Compact now. */
  now?: CompactionPlanCost;
  /** Carry the window (compacting only when it would pass the budget). */
  defer?: CompactionPlanCost;
  /** "horizon": the plans summed over horizonTurns; "cycle": each until the forced compaction, less the cycle's mean cost per turn. */
  mode?: "horizon" | "cycle";
  /** Mode "cycle": the mean cost per turn (USD) of the cycle "compact when forced" runs from the target to the budget. */
  averageTurnUsd?: number;
  /** One line: the two totals and why. */
  reason: string;
}

/** Tokens and USD of one part of the bills (`context:spend`). */
export interface SpendPart {
  /** Input billed outside cache writes: not from cache + cache reads. */
  inputTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
  usd: number;
}

/**
 * The session's spend, split three ways (a partition of the priced bills): the conversation's
 * answers; compaction — the context's summarizer calls and the provider's server-side compaction;
 * every cache write. USD at the model registry's list prices; a bill of an unpriced model counts
 * its tokens and no USD (`unpricedCalls`).
 */
export interface SpendReport {
  conversation: SpendPart & { calls: number };
  compaction: SpendPart & { summarizerCalls: number; providerCompactions: number };
  cacheWrites: { tokens: number; usd: number };
  totalUsd: number;
  unpricedCalls: number;
}

/**
 * A session's spend as replay and the Inspector show it: the same three parts as SpendReport, with
 * cache reads apart and USD absent for a model without prices. Replay computes it (`ReplaySpend`),
 * the Inspector shows it (`SpendFigures`): one shape, named once here.
 */
export interface SessionSpendSummary {
  conversation: { inputTokens: number; cacheReadTokens: number; outputTokens: number; usd?: number };
  compaction: { summarizerCalls: number; providerCompactions: number; inputTokens: number; outputTokens: number; usd?: number };
  cacheWrites: { tokens: number; usd?: number };
  totalUsd?: number;
  /** compaction's USD / totalUsd (0 when nothing was spent). */
  compactionShare?: number;
  /** compaction's tokens / every token. */
  compactionTokenShare: number;
  /** Whether the prompt cache was simulated (replay `--cache`); without it the conversation is priced uncached and no writes are known. */
  cacheSimulated: boolean;
}
