/**
 * The cost policy of compaction (config `compactionPolicy: { policy: "cost", horizonTurns }`):
 * compact now, or carry the larger window, whichever costs less at the model's list prices
 * (ModelPrices, USD per million tokens). Issue 29 §2.
 *
 * W: the window if the cut stays; T: after a compaction (compactTarget × B, the recut's bound);
 * B: the budget; g: the history's mean growth per request; h: `horizonTurns`, the requests the
 * session is expected to go on for. A turn's costs (each turn's new tokens are sent uncached in
 * every plan, so they are left out):
 *
 * | turn                        | cost                                                                 |
 * |-----------------------------|----------------------------------------------------------------------|
 * | carries window w            | w × cachedInput (read from the prompt cache)                         |
 * | compacts from w             | T × cacheWrite (the new prefix, written: the input price where none is listed — OpenAI bills a new prefix as input) + the summarizer's call when the compaction makes one: (w − T) × its input + summaryTokens × its output |
 *
 * A compacting turn loses the reads of the old prefix: it pays T at the write price where carrying
 * reads W at the cached price. The plans: **now** compacts at this request, then carries; **defer**
 * carries, and compacts only when the window would pass B (forced). Two cases:
 *
 * | case | when | comparison |
 * |------|------|------------|
 * | horizon | carrying would not be forced within h requests (W + (h−1)·g ≤ B, or g = 0) | each plan's costs summed over the h requests (the session taken to end there) |
 * | cycle | it would: compactions recur, the session goes on past them | each plan until the forced compaction at B, every turn charged its cost less ρ, the mean cost per turn of the forced policy's cycle (T → B: one compaction, then n = ⌊(B − T)/g⌋ carrying turns). One step of policy improvement over "compact when forced": compacting now wins when the turns it spares cost more than ρ each on average |
 *
 * Without the cycle correction a rolling horizon compacts too early: it does not see that a
 * compaction made now brings the next one nearer (the bench row priced-compaction showed it).
 * Ties defer: compaction is the change.
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
  const costs = turnCosts(input);
  const forcedWithin = g > 0 && W + (h - 1) * g > B;
  let now: PlanCost;
  let defer: PlanCost;
  let rate: number | undefined;
  if (!forcedWithin) {
    now = horizonPlan(input, costs, true);
    defer = horizonPlan(input, costs, false);
  } else {
    // The forced policy's cycle from T: a compaction (from the window just past B), then n carrying turns.
    const n = Math.floor((B - T) / g);
    const passing = T + (n + 1) * g;
    let cycle = costs.compact(passing).total;
    for (let k = 1; k <= n; k++) cycle += costs.carry(T + k * g);
    rate = cycle / (n + 1);
    const c = costs.compact(W);
    now = { readsUsd: 0, summarizerUsd: c.summarizer, cacheWriteUsd: c.write, totalUsd: 0, compactions: [0], turns: n + 1 };
    for (let k = 1; k <= n; k++) now.readsUsd += costs.carry(T + k * g);
    now.totalUsd = now.readsUsd + now.summarizerUsd + now.cacheWriteUsd - (n + 1) * rate;
    defer = { readsUsd: 0, summarizerUsd: 0, cacheWriteUsd: 0, totalUsd: 0, compactions: [], turns: 0 };
    for (let w = W; w <= B; w += g) {
      defer.readsUsd += costs.carry(w);
      defer.turns! += 1;
    }
    defer.compactions.push(defer.turns!);
    defer.totalUsd = defer.readsUsd - defer.turns! * rate;
  }
  const compact = now.totalUsd < defer.totalUsd;
  const usd = (x: number) => `$${x.toFixed(6)}`;
  const parts = `summarizer ${usd(now.summarizerUsd)}, cache write ${usd(now.cacheWriteUsd)}, reads ${usd(now.readsUsd)}`;
  const basis = rate === undefined ? `over ${h} turns` : `until the compaction forced at the budget, each turn less the cycle's mean ${usd(rate)} per turn`;
  const reason = compact
    ? `cost policy: compacting now (${W} → ${T} tokens) ${usd(now.totalUsd)} (${parts}) against carrying ${usd(defer.totalUsd)}, ${basis}`
    : `cost policy: carrying ${W} tokens ${usd(defer.totalUsd)} against compacting now (→ ${T}) ${usd(now.totalUsd)} (${parts}), ${basis}`;
  return { policy: "cost", compact, mode: rate === undefined ? "horizon" : "cycle", horizonTurns: h, windowTokens: W, targetTokens: T, budget: B, growthPerTurn: g, now, defer, ...(rate === undefined ? {} : { averageTurnUsd: rate }), reason };
}

interface TurnCosts {
  carry(window: number): number;
  compact(window: number): { write: number; summarizer: number; total: number };
}

function turnCosts(input: CompactionCostInput): TurnCosts {
  const { targetTokens: T, prices, summarizer } = input;
  const perToken = (usdPerMillion: number) => usdPerMillion / 1_000_000;
  const write = T * perToken(prices.cacheWrite ?? prices.input);
  const read = perToken(prices.cachedInput);
  return {
    carry: (window) => window * read,
    compact: (window) => {
      const s = summarizer ? Math.max(0, window - T) * perToken(summarizer.input) + summarizer.summaryTokens * perToken(summarizer.output) : 0;
      return { write, summarizer: s, total: write + s };
    },
  };
}

/** The horizon case: the plan's costs over h turns, compacting whenever its window would pass B. */
function horizonPlan(input: CompactionCostInput, costs: TurnCosts, compactFirst: boolean): PlanCost {
  const { windowTokens: W, targetTokens: T, budget: B, growthPerTurn: g, horizonTurns: h } = input;
  const cost: PlanCost = { readsUsd: 0, summarizerUsd: 0, cacheWriteUsd: 0, totalUsd: 0, compactions: [], turns: h };
  let window = W;
  for (let k = 0; k < h; k++) {
    if (k > 0) window += g;
    if ((k === 0 && compactFirst) || window > B) {
      const c = costs.compact(window);
      cost.summarizerUsd += c.summarizer;
      cost.cacheWriteUsd += c.write;
      cost.compactions.push(k);
      window = T;
    } else {
      cost.readsUsd += costs.carry(window);
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
