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
 */
import type { BilledUsage } from "@amplifier-ts/contracts";
import { priceUsage } from "@amplifier-ts/tokens";

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
}

export class SpendTally {
  readonly #spend: Spend = { calls: 0, inputTokens: 0, outputTokens: 0, compactions: 0, compactionInputTokens: 0, compactionOutputTokens: 0, answerUsd: 0, compactionUsd: 0, totalUsd: 0, unpriced: 0 };

  add(model: string, usage: BilledUsage): void {
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
    const price = priceUsage(model, usage);
    if (price === undefined) {
      s.unpriced++;
      return;
    }
    s.answerUsd += price.answerUsd;
    s.compactionUsd += price.compactionUsd;
    s.totalUsd += price.totalUsd;
  }

  snapshot(): Spend {
    return { ...this.#spend };
  }
}

function finite(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}
