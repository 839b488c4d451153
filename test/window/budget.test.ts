import { describe, expect, it } from "vitest";
import { explainBudget, resolveBudget } from "../../modules/window/index.js";

const provider = (defaults: Record<string, unknown>) => ({ id: "fake", defaults });
const error = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e as { code: string; message: string; details: Record<string, unknown> };
  }
  throw new Error("expected a throw");
};

describe("resolveBudget: the first source present wins", () => {
  it("1. tokenBudget, as given, over everything else", () => {
    expect(explainBudget({ tokenBudget: 5_000, providerInfo: provider({ context_window: 128_000, max_output_tokens: 4_000 }), maxTokens: 9 })).toEqual({
      budget: 5_000,
      source: "tokenBudget",
    });
  });

  it("2. the provider: context_window − max_output_tokens − safetyMargin (default 1000)", () => {
    expect(explainBudget({ providerInfo: provider({ context_window: 4_000, max_output_tokens: 1_000 }) })).toEqual({ budget: 2_000, source: "provider" });
    expect(resolveBudget({ providerInfo: provider({ context_window: 4_000, max_output_tokens: 1_000 }), safetyMargin: 0 })).toBe(3_000);
  });

  it("2. the provider without max_output_tokens takes the registry's, else 0", () => {
    const modelInfo = { contextWindow: 1, maxOutputTokens: 500 };
    expect(resolveBudget({ providerInfo: provider({ context_window: 4_000 }), modelInfo })).toBe(2_500);
    expect(resolveBudget({ providerInfo: provider({ context_window: 4_000 }) })).toBe(3_000);
  });

  it("3. the model registry: modelInfo, or the model looked up", () => {
    expect(explainBudget({ modelInfo: { contextWindow: 10_000, maxOutputTokens: 2_000 } })).toEqual({ budget: 7_000, source: "model-registry" });
    // gpt-4o: 128,000 context, 16,384 output (@amplifier-ts/tokens registry).
    expect(explainBudget({ model: "gpt-4o" })).toEqual({ budget: 128_000 - 16_384 - 1_000, source: "model-registry" });
    expect(explainBudget({ providerInfo: { id: "no-defaults" }, model: "gpt-4o" }).source).toBe("model-registry");
  });

  it("4. maxTokens (default 100,000)", () => {
    expect(explainBudget({})).toEqual({ budget: 100_000, source: "maxTokens" });
    expect(explainBudget({ model: "no-such-model-xyz", maxTokens: 777 })).toEqual({ budget: 777, source: "maxTokens" });
  });
});

describe("resolveBudget: a budget that is not a positive finite number is INVALID_BUDGET", () => {
  it.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY])("tokenBudget %s", (tokenBudget) => {
    const e = error(() => resolveBudget({ tokenBudget }));
    expect(e.code).toBe("INVALID_BUDGET");
    expect(e.details).toMatchObject({ source: "tokenBudget" });
  });

  it("names the provider's numbers when they leave nothing", () => {
    const e = error(() => resolveBudget({ providerInfo: provider({ context_window: 4_000, max_output_tokens: 3_500 }) }));
    expect(e.code).toBe("INVALID_BUDGET");
    expect(e.details).toMatchObject({ source: "provider", contextWindow: 4_000, maxOutputTokens: 3_500, safetyMargin: 1_000, budget: -500 });
    expect(e.message).toContain("-500");
  });

  it("does not fall back to the next source when one is present but bad", () => {
    expect(error(() => resolveBudget({ providerInfo: provider({ context_window: "big" }), maxTokens: 1_000 })).code).toBe("INVALID_BUDGET");
    expect(error(() => resolveBudget({ modelInfo: { contextWindow: 100, maxOutputTokens: 100 } })).details).toMatchObject({ source: "model-registry" });
    expect(error(() => resolveBudget({ maxTokens: 0 })).details).toMatchObject({ source: "maxTokens" });
  });

  it("rejects a negative or non-finite safetyMargin with INVALID_ARGUMENT", () => {
    expect(error(() => resolveBudget({ safetyMargin: -1 })).code).toBe("INVALID_ARGUMENT");
    expect(error(() => resolveBudget({ safetyMargin: Number.NaN })).code).toBe("INVALID_ARGUMENT");
  });
});
