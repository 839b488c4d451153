/**
 * The cost policy of compaction (config `compactionPolicy: { policy: "cost", horizonTurns }`):
 * compact now, or carry the larger window, whichever the next `horizonTurns` requests cost less
 * at the model's list prices (ModelPrices, USD per million tokens). Issue 29 §2.
 *
 * Two plans over the turns k = 0 … h−1 (this request is k = 0), the window growing by g tokens a
 * turn (the history's mean growth per request). Only what differs between them is counted: each
 * turn's new tokens are sent uncached in both plans.
 *
 * | plan  | window at turn k                 | a turn that does not compact  | a turn that compacts (from W to T)                  |
 * |-------|----------------------------------|-------------------------------|-----------------------------------------------------|
 * | now   | T + k·g                          | its window read from the cache: window × cachedInput | summarizer: (window − T) × its input + summaryTokens × its output; cache write of the new prefix: T × cacheWrite (the input price where none is listed: OpenAI bills a new prefix as input) |
 * | defer | W + k·g, until it would pass B   | the same                      | the same, forced the turn the window would pass the budget B |
 *
 * A compacting turn loses the reads of the old prefix (it pays T at the write price where the
 * defer plan reads W at the cached price); that is the "lost cache reads" the explanation names.
 * The policy compacts now when the now plan costs less (ties defer: compaction is the change).
 * T is the window after a recut: at most compactTarget × B (cut-policy.ts rule 3), taken as that.
 */
import type { CompactionCostDecision, CompactionPlanCost } from "@amplifier-ts/contracts";

export interface CompactionPrices {
  /** USD per million tokens, the conversation's model. */
  input: number;
  cachedInput: number;
  /** The price of a cache write; undefined = the input price (OpenAI: no write price, a new prefix is billed as input). */
  cacheWrite?: number | undefined;
}

export interface SummarizerPrices {
  /** USD per million tokens, the summarizer's model. */
  input: number;
  output: number;
  /** Tokens of a summary (its output per compaction). */
  summaryTokens: number;
}

export interface CompactionCostInput {
  /** Tokens the request sends if the cut stays (W). */
  windowTokens: number;
  /** Tokens it sends after a compaction (T). */
  targetTokens: number;
  /** The request's budget (B): the defer plan must compact before a window passes it. */
  budget: number;
  /** Tokens the history grows per request (g ≥ 0). */
  growthPerTurn: number;
  /** Turns looked ahead (h ≥ 1), this one included. */
  horizonTurns: number;
  prices: CompactionPrices;
  /** The summarizer's call per compaction; undefined = the compaction calls none (a cut). */
  summarizer?: SummarizerPrices | undefined;
}

export type PlanCost = CompactionPlanCost;
export type CompactionDecision = CompactionCostDecision;

/** The decision for one request (see the file comment); pure arithmetic, no I/O. */
export function decideCompaction(input: CompactionCostInput): CompactionDecision {
  const { windowTokens: W, targetTokens: T, budget: B, growthPerTurn: g, horizonTurns: h } = input;
  const now = planCost(input, W, true);
  const defer = planCost(input, W, false);
  const compact = now.totalUsd < defer.totalUsd;
  const usd = (n: number) => `$${n.toFixed(6)}`;
  const forced = defer.compactions.length > 0 ? `, forced at turn ${defer.compactions[0]}` : "";
  const reason = compact
    ? `cost policy: compacting now (${W} → ${T} tokens) costs ${usd(now.totalUsd)} over ${h} turns (summarizer ${usd(now.summarizerUsd)}, cache write ${usd(now.cacheWriteUsd)}, reads ${usd(now.readsUsd)}); carrying the window costs ${usd(defer.totalUsd)}${forced}`
    : `cost policy: carrying ${W} tokens costs ${usd(defer.totalUsd)} over ${h} turns${forced}; compacting now (→ ${T}) would cost ${usd(now.totalUsd)} (summarizer ${usd(now.summarizerUsd)}, cache write ${usd(now.cacheWriteUsd)}, reads ${usd(now.readsUsd)})`;
  return { policy: "cost", compact, horizonTurns: h, windowTokens: W, targetTokens: T, budget: B, growthPerTurn: g, now, defer, reason };
}

function planCost(input: CompactionCostInput, start: number, compactFirst: boolean): PlanCost {
  const { targetTokens: T, budget: B, growthPerTurn: g, horizonTurns: h, prices, summarizer } = input;
  const perToken = (usdPerMillion: number) => usdPerMillion / 1_000_000;
  const write = perToken(prices.cacheWrite ?? prices.input);
  const read = perToken(prices.cachedInput);
  const cost: PlanCost = { readsUsd: 0, summarizerUsd: 0, cacheWriteUsd: 0, totalUsd: 0, compactions: [] };
  let window = start;
  for (let k = 0; k < h; k++) {
    if (k > 0) window += g;
    if ((k === 0 && compactFirst) || window > B) {
      if (summarizer) cost.summarizerUsd += Math.max(0, window - T) * perToken(summarizer.input) + summarizer.summaryTokens * perToken(summarizer.output);
      cost.cacheWriteUsd += T * write;
      cost.compactions.push(k);
      window = T;
    } else {
      cost.readsUsd += window * read;
    }
  }
  cost.totalUsd = cost.readsUsd + cost.summarizerUsd + cost.cacheWriteUsd;
  return cost;
}

/** How many of the newest requests the growth per turn is the mean of. */
const GROWTH_SAMPLES = 8;

/**
 * The history's growth per request (tokens), the mean of the last GROWTH_SAMPLES increases of its
 * token total between requests; a shrink (setMessages, clearRun) counts as 0.
 */
export class HistoryGrowth {
  #last: number | undefined;
  readonly #deltas: number[] = [];

  /** Notes this request's history total; returns the growth per request so far (0 before two requests). */
  observe(historyTokens: number): number {
    if (this.#last !== undefined) {
      this.#deltas.push(Math.max(0, historyTokens - this.#last));
      if (this.#deltas.length > GROWTH_SAMPLES) this.#deltas.shift();
    }
    this.#last = historyTokens;
    return this.#deltas.length === 0 ? 0 : this.#deltas.reduce((a, b) => a + b, 0) / this.#deltas.length;
  }
}
