/**
 * What the recorded bills cost (HistoryContextManager.spend), at the model registry's list prices
 * (@amplifier-ts/tokens priceUsage), with the provider's server-side compaction apart:
 *
 * | field                      | sum over the bills recorded (provider:response, recordUsage) |
 * |----------------------------|---------------------------------------------------------------|
 * | calls                      | bills                                                         |
 * | inputTokens, outputTokens  | the answers' figures                                          |
 * | compactions                | `usage.compaction.iterations`                                 |
 * | compactionInputTokens, compactionOutputTokens | `usage.compaction`'s figures (Anthropic; OpenAI reports none) |
 * | answerUsd, compactionUsd, totalUsd | priceUsage's, for the bills of priced models         |
 * | unpriced                   | bills of a model the registry has no prices for (not in the USD figures) |
 *
 * `breakdown` (issue 29 §2) splits the same bills three ways, a partition: the three `usd` add up to
 * totalUsd (priced bills only), their tokens to every billed token.
 *
 * | part         | tokens                                                                              | rates |
 * |--------------|-------------------------------------------------------------------------------------|-------|
 * | conversation | the conversation's answers: input not from cache, cache reads, output (not cache writes) | input, cachedInput, output |
 * | compaction   | the summarizer's calls (bills that arrive while the context's summarizer runs) and the provider's compaction iterations (`usage.compaction`): input not written to cache, output | the same |
 * | cacheWrites  | every cache write (`cacheWriteTokens`) of the three kinds of bill                   | cacheWrite, else input |
 */
import type { BilledUsage, SpendReport } from "@amplifier-ts/contracts";
import { getModelInfo, priceUsage, type ModelPrices } from "@amplifier-ts/tokens";

/** Whose bill: the conversation's answer, or a summarizer call the context made. */
export type BillKind = "conversation" | "summarizer";

export type SpendBreakdown = SpendReport;

export interface Spend {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  compactions: number;
  compactionInputTokens: number;
  compactionOutputTokens: number;
  answerUsd: number;
  compactionUsd: number;
  totalUsd: number;
  unpriced: number;
  breakdown: SpendBreakdown;
}

/** One bill's three parts (tokens and USD; USD 0 without prices). */
export interface BillParts {
  kind: BillKind;
  conversation: { inputTokens: number; cacheReadTokens: number; outputTokens: number; usd: number };
  compaction: { inputTokens: number; cacheReadTokens: number; outputTokens: number; usd: number };
  cacheWrites: { tokens: number; usd: number };
  priced: boolean;
}

export function emptyBreakdown(): SpendBreakdown {
  return {
    conversation: { calls: 0, inputTokens: 0, cacheReadTokens: 0, outputTokens: 0, usd: 0 },
    compaction: { summarizerCalls: 0, providerCompactions: 0, inputTokens: 0, cacheReadTokens: 0, outputTokens: 0, usd: 0 },
    cacheWrites: { tokens: 0, usd: 0 },
    totalUsd: 0,
    unpricedCalls: 0,
  };
}

export class SpendTally {
  readonly #spend: Spend = { calls: 0, inputTokens: 0, outputTokens: 0, compactions: 0, compactionInputTokens: 0, compactionOutputTokens: 0, answerUsd: 0, compactionUsd: 0, totalUsd: 0, unpriced: 0, breakdown: emptyBreakdown() };

  /** Adds one bill; returns its three parts. */
  add(model: string, usage: BilledUsage, kind: BillKind = "conversation"): BillParts {
    const s = this.#spend;
    s.calls++;
    s.inputTokens += finite(usage.inputTokens);
    s.outputTokens += finite(usage.outputTokens);
    const compaction = usage.compaction;
    if (compaction !== undefined && compaction !== null) {
      s.compactions += finite(compaction.iterations);
      s.compactionInputTokens += finite(compaction.inputTokens);
      s.compactionOutputTokens += finite(compaction.outputTokens);
    }
    const parts = billParts(model, usage, kind);
    const b = s.breakdown;
    if (kind === "summarizer") b.compaction.summarizerCalls++;
    else b.conversation.calls++;
    b.compaction.providerCompactions += finite(compaction?.iterations);
    for (const key of ["inputTokens", "cacheReadTokens", "outputTokens", "usd"] as const) {
      b.conversation[key] += parts.conversation[key];
      b.compaction[key] += parts.compaction[key];
    }
    b.cacheWrites.tokens += parts.cacheWrites.tokens;
    b.cacheWrites.usd += parts.cacheWrites.usd;
    b.totalUsd = b.conversation.usd + b.compaction.usd + b.cacheWrites.usd;
    if (!parts.priced) b.unpricedCalls++;
    const price = priceUsage(model, usage);
    if (price === undefined) {
      s.unpriced++;
      return parts;
    }
    s.answerUsd += price.answerUsd;
    s.compactionUsd += price.compactionUsd;
    s.totalUsd += price.totalUsd;
    return parts;
  }

  snapshot(): Spend {
    const b = this.#spend.breakdown;
    return { ...this.#spend, breakdown: { ...b, conversation: { ...b.conversation }, compaction: { ...b.compaction }, cacheWrites: { ...b.cacheWrites } } };
  }
}

/** A bill split into conversation / compaction / cache writes (see the file comment). */
export function billParts(model: string, usage: BilledUsage, kind: BillKind): BillParts {
  const prices = getModelInfo(model)?.prices;
  const answer = split(usage, prices);
  const iterations = usage.compaction;
  const server = iterations !== undefined && iterations !== null ? split(iterations, prices) : split({}, prices);
  const zero = { inputTokens: 0, cacheReadTokens: 0, outputTokens: 0, usd: 0 };
  const conversation = kind === "conversation" ? answer.rest : zero;
  const fromAnswer = kind === "summarizer" ? answer.rest : zero;
  return {
    kind,
    conversation,
    compaction: {
      inputTokens: fromAnswer.inputTokens + server.rest.inputTokens,
      cacheReadTokens: fromAnswer.cacheReadTokens + server.rest.cacheReadTokens,
      outputTokens: fromAnswer.outputTokens + server.rest.outputTokens,
      usd: fromAnswer.usd + server.rest.usd,
    },
    cacheWrites: { tokens: answer.writes.tokens + server.writes.tokens, usd: answer.writes.usd + server.writes.usd },
    priced: prices !== undefined,
  };
}

function split(part: { inputTokens?: number; outputTokens?: number; cacheReadTokens?: number; cacheWriteTokens?: number }, prices: ModelPrices | undefined) {
  const read = finite(part.cacheReadTokens);
  const write = finite(part.cacheWriteTokens);
  const input = finite(part.inputTokens);
  const output = finite(part.outputTokens);
  const fresh = Math.max(0, input - read - write);
  const rate = (usdPerMillion: number | undefined) => (prices === undefined ? 0 : (usdPerMillion ?? 0) / 1_000_000);
  return {
    // inputTokens: what was billed as input, cache writes excepted (fresh + read).
    rest: { inputTokens: fresh + read, cacheReadTokens: read, outputTokens: output, usd: fresh * rate(prices?.input) + read * rate(prices?.cachedInput) + output * rate(prices?.output) },
    writes: { tokens: write, usd: write * rate(prices?.cacheWrite ?? prices?.input) },
  };
}

function finite(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}
