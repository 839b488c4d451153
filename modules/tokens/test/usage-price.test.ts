import { describe, expect, it } from "vitest";
import { getModelInfo, priceUsage } from "../index.js";

describe("priceUsage: a bill at the model's list prices, the provider's compaction apart", () => {
  const p = getModelInfo("claude-sonnet-4-6")!.prices!;

  it("prices each part at its rate: fresh input, cache reads, cache writes, output", () => {
    const price = priceUsage("claude-sonnet-4-6", { inputTokens: 1_000_000, cacheReadTokens: 200_000, cacheWriteTokens: 100_000, outputTokens: 10_000 })!;
    expect(price.answerUsd).toBeCloseTo(0.7 * p.input + 0.2 * p.cachedInput + 0.1 * p.cacheWrite! + 0.01 * p.output, 12);
    expect(price).toMatchObject({ compactionUsd: 0, compactionIncluded: false, asOf: p.asOf, source: p.source });
  });

  it("Anthropic's compaction iterations are priced by the same rule, apart; OpenAI's are inside the answer", () => {
    const anthropic = priceUsage("claude-sonnet-4-6", { inputTokens: 2_000, outputTokens: 100, compaction: { iterations: 1, inputTokens: 150_000, outputTokens: 3_000 } })!;
    expect(anthropic.compactionUsd).toBeCloseTo((150_000 * p.input + 3_000 * p.output) / 1e6, 12);
    expect(anthropic.totalUsd).toBeCloseTo(anthropic.answerUsd + anthropic.compactionUsd, 12);
    expect(priceUsage("gpt-4o", { inputTokens: 2_000, outputTokens: 100, compaction: { iterations: 1 } })).toMatchObject({ compactionUsd: 0, compactionIncluded: true });
  });

  it("a model without prices: undefined", () => {
    expect(priceUsage("gpt-4.1", { inputTokens: 10 })).toBeUndefined();
  });
});
