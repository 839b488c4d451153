/**
 * What one request is sized with: the model (the provider's, else config `model`), the budget and
 * the token counter for that model.
 *
 * | budget source (first that applies)                          |
 * |-------------------------------------------------------------|
 * | the caller's `tokenBudget`                                  |
 * | provider context_window − max_output_tokens − safetyMargin  |
 * | the model registry's window for the model, same rule        |
 * | config `maxTokens`                                          |
 *
 * (resolveBudget in @amplifier-ts/window holds the rule.) Counters are kept per model: each caches
 * its per-message counts, so a message is tokenized at most once per encoding.
 */
import type { Provider, ProviderInfo } from "@amplifier-ts/contracts";
import { createError, validateProviderInfo } from "@amplifier-ts/contracts";
import { getModelInfo, getTokenCounter, type TokenCounter } from "@amplifier-ts/core";
import { resolveBudget } from "@amplifier-ts/window";
import type { ContextOptions } from "./context-options.js";

export interface RequestSize {
  readonly budget: number;
  readonly model: string;
  readonly counter: TokenCounter;
}

export class RequestBudget {
  readonly #options: ContextOptions;
  readonly #counters = new Map<string, TokenCounter>();

  constructor(options: ContextOptions) {
    this.#options = options;
  }

  async resolve(tokenBudget: number | undefined, provider: Provider | undefined): Promise<RequestSize> {
    const info = provider === undefined ? undefined : await providerInfo(provider);
    const model = info?.defaults?.model ?? this.#options.model;
    const budget = resolveBudget({
      tokenBudget,
      providerInfo: info,
      modelInfo: getModelInfo(model),
      safetyMargin: this.#options.safetyMargin,
      maxTokens: this.#options.maxTokens,
    });
    return { budget, model, counter: this.counterFor(model) };
  }

  counterFor(model: string): TokenCounter {
    let counter = this.#counters.get(model);
    if (!counter) {
      counter = getTokenCounter(model, { safetyFactor: this.#options.safetyFactor });
      this.#counters.set(model, counter);
    }
    return counter;
  }
}

/**
 * The provider's info, or INVALID_PROVIDER_INFO: a provider that is not one (no getInfo), whose
 * getInfo throws, or whose answer is not ProviderInfo fails typed, with the cause kept.
 */
async function providerInfo(provider: Provider): Promise<ProviderInfo> {
  if (typeof provider !== "object" || provider === null || typeof (provider as { getInfo?: unknown }).getInfo !== "function") {
    throw createError("INVALID_PROVIDER_INFO", "the provider has no getInfo()", { path: "provider", expected: "a Provider: an object with getInfo()", given: provider });
  }
  let info: unknown;
  try {
    info = await provider.getInfo();
  } catch (cause) {
    throw createError("INVALID_PROVIDER_INFO", `provider.getInfo() threw: ${cause instanceof Error ? cause.message : String(cause)}`, { path: "provider.getInfo()", cause });
  }
  return validateProviderInfo(info, "provider.getInfo()");
}
