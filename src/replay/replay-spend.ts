/**
 * What a replayed session spent, three ways (issue 29 §2; the same partition as the context
 * manager's `spend.breakdown`, modules/context-manager/spend-tally.ts), at the model registry's
 * list prices (USD per million tokens):
 *
 * | part         | tokens, summed over the turns                                                       | rates |
 * |--------------|--------------------------------------------------------------------------------------|-------|
 * | conversation | each window as counted (input) and each recorded answer (output); with `--cache`, the simulated cache's reads apart | input, cachedInput, output |
 * | compaction   | the summarizer's calls the context billed during the replay (its `spend.breakdown.compaction`) and the provider compaction recorded on the transcript's answers (`metadata.usage.compaction`) | the model's |
 * | cacheWrites  | with `--cache`: the simulated cache's writes (Anthropic; OpenAI writes nothing: a new prefix is input) | cacheWrite, else input |
 *
 * Without `--cache` every input token counts as uncached and nothing as written: an upper bound of
 * the conversation's cost. USD fields are absent for a model without prices.
 */
import type { BilledUsage, Message, SessionSpendSummary, SpendReport } from "@amplifier-ts/contracts";
import type { ModelPrices } from "@amplifier-ts/tokens";
import type { CacheTurn } from "./prompt-cache.js";

/** The shape replay reports (contracts: SessionSpendSummary, which the Inspector shows too). */
export type ReplaySpend = SessionSpendSummary;

export class ReplaySpendTally {
  readonly #prices: ModelPrices | undefined;
  readonly #cache: boolean;
  readonly #conversation = { inputTokens: 0, cacheReadTokens: 0, outputTokens: 0, usd: 0 };
  readonly #writes = { tokens: 0, usd: 0 };
  readonly #recorded = { iterations: 0, inputTokens: 0, outputTokens: 0, usd: 0 };

  constructor(prices: ModelPrices | undefined, cache: boolean) {
    this.#prices = prices;
    this.#cache = cache;
  }

  /** One turn: the window's counted input (and, with the cache, what it read and wrote) and the recorded answer. */
  turn(inputTokens: number, outputTokens: number, cache: CacheTurn | undefined, answer: Message): void {
    const read = cache?.cachedTokens ?? 0;
    const written = cache?.writeTokens ?? 0;
    const input = cache?.inputTokens ?? inputTokens;
    const rate = (usdPerMillion: number | undefined) => (usdPerMillion ?? 0) / 1_000_000;
    const p = this.#prices;
    this.#conversation.inputTokens += input - written;
    this.#conversation.cacheReadTokens += read;
    this.#conversation.outputTokens += outputTokens;
    this.#writes.tokens += written;
    if (p) {
      this.#conversation.usd += (input - read - written) * rate(p.input) + read * rate(p.cachedInput) + outputTokens * rate(p.output);
      this.#writes.usd += written * rate(p.cacheWrite ?? p.input);
    }
    const compaction = (answer.metadata as { usage?: BilledUsage } | undefined)?.usage?.compaction;
    if (compaction && typeof compaction === "object") {
      const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
      this.#recorded.iterations += n(compaction.iterations);
      this.#recorded.inputTokens += n(compaction.inputTokens);
      this.#recorded.outputTokens += n(compaction.outputTokens);
      if (p) this.#recorded.usd += n(compaction.inputTokens) * rate(p.input) + n(compaction.outputTokens) * rate(p.output);
    }
  }

  /** The totals, with the summarizer's calls the context billed (`spend.breakdown`, when the module keeps one). */
  summary(contextSpend: SpendReport | undefined): ReplaySpend {
    const priced = this.#prices !== undefined;
    const summarizer = contextSpend?.compaction;
    const compactionUsd = this.#recorded.usd + (summarizer?.usd ?? 0);
    const compactionIn = this.#recorded.inputTokens + (summarizer?.inputTokens ?? 0);
    const compactionOut = this.#recorded.outputTokens + (summarizer?.outputTokens ?? 0);
    const c = this.#conversation;
    const totalUsd = c.usd + compactionUsd + this.#writes.usd;
    const allTokens = c.inputTokens + c.outputTokens + this.#writes.tokens + compactionIn + compactionOut;
    return {
      conversation: { inputTokens: c.inputTokens, cacheReadTokens: c.cacheReadTokens, outputTokens: c.outputTokens, ...(priced ? { usd: c.usd } : {}) },
      compaction: {
        summarizerCalls: summarizer?.summarizerCalls ?? 0,
        providerCompactions: this.#recorded.iterations,
        inputTokens: compactionIn,
        outputTokens: compactionOut,
        ...(priced ? { usd: compactionUsd } : {}),
      },
      cacheWrites: { tokens: this.#writes.tokens, ...(priced ? { usd: this.#writes.usd } : {}) },
      ...(priced ? { totalUsd, compactionShare: totalUsd > 0 ? compactionUsd / totalUsd : 0 } : {}),
      compactionTokenShare: allTokens > 0 ? (compactionIn + compactionOut) / allTokens : 0,
      cacheSimulated: this.#cache,
    };
  }
}
