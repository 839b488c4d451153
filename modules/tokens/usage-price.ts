/**
 * What one call's bill cost at the model's list prices (ModelPrices, USD per million tokens), with
 * the provider's server-side compaction priced apart from the answer:
 *
 * | part                    | tokens                                                          | rate          |
 * |-------------------------|-----------------------------------------------------------------|---------------|
 * | input not from cache    | inputTokens − cacheReadTokens − cacheWriteTokens                 | `input`       |
 * | cache reads             | cacheReadTokens                                                 | `cachedInput` |
 * | cache writes            | cacheWriteTokens                                                | `cacheWrite` (else `input`) |
 * | output                  | outputTokens                                                    | `output`      |
 * | compaction              | the same four parts of `usage.compaction` (Anthropic's compaction iterations) | the same rates |
 *
 * OpenAI reports no token split for its server-side compaction (BilledUsage): its cost is inside the
 * answer's, and `compactionUsd` is 0 with `compactionIncluded: true`. Undefined for a model the
 * registry has no prices for.
 */
import type { BilledUsage } from "@amplifier-ts/contracts";
import { getModelInfo, type ModelPrices } from "./model-registry.js";

export interface UsagePrice {
  /** The answer's tokens (the bill's top-level figures). */
  answerUsd: number;
  /** The provider's compaction iterations. */
  compactionUsd: number;
  totalUsd: number;
  /** The compaction ran but its tokens are inside the answer's figures (OpenAI). */
  compactionIncluded: boolean;
  /** The prices' date and page (ModelPrices). */
  asOf: string;
  source: string;
}

export function priceUsage(model: string, usage: BilledUsage): UsagePrice | undefined {
  const prices = getModelInfo(model)?.prices;
  if (prices === undefined) return undefined;
  const answerUsd = partCost(prices, usage);
  const compaction = usage.compaction;
  const hasTokens = compaction !== undefined && (compaction.inputTokens !== undefined || compaction.outputTokens !== undefined);
  const compactionUsd = hasTokens ? partCost(prices, compaction) : 0;
  return { answerUsd, compactionUsd, totalUsd: answerUsd + compactionUsd, compactionIncluded: compaction !== undefined && !hasTokens, asOf: prices.asOf, source: prices.source };
}

function partCost(prices: ModelPrices, part: { inputTokens?: number; outputTokens?: number; cacheReadTokens?: number; cacheWriteTokens?: number }): number {
  const read = part.cacheReadTokens ?? 0;
  const write = part.cacheWriteTokens ?? 0;
  const fresh = Math.max(0, (part.inputTokens ?? 0) - read - write);
  const perToken = (rate: number) => rate / 1_000_000;
  return fresh * perToken(prices.input) + read * perToken(prices.cachedInput) + write * perToken(prices.cacheWrite ?? prices.input) + (part.outputTokens ?? 0) * perToken(prices.output);
}
