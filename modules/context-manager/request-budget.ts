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
import { createError, isAmplifierError, SERVER_COMPACTION_CAPABILITY, validateProviderInfo } from "@amplifier-ts/contracts";
import { getModelInfo, getTokenCounter, type TokenCounter } from "@amplifier-ts/tokens";
import { resolveBudget } from "@amplifier-ts/window";
import type { ContextOptions } from "./context-options.js";

export interface RequestSize {
  readonly budget: number;
  readonly model: string;
  readonly counter: TokenCounter;
  /** The provider's getInfo() lists the server-compaction capability (provider-compaction.ts). */
  readonly serverCompaction: boolean;
  /** The provider's id (getInfo), for reports. */
  readonly providerId?: string;
}

export class RequestBudget {
  readonly #options: ContextOptions;
  readonly #counters = new Map<string, TokenCounter>();

  constructor(options: ContextOptions) {
    this.#options = options;
  }

  async resolve(tokenBudget: number | undefined, provider: Provider | undefined): Promise<RequestSize> {
    const info = provider === undefined ? undefined : await providerInfo(provider, this.#options.providerInfoTimeoutMs);
    const model = info?.defaults?.model ?? this.#options.model;
    const budget = resolveBudget({
      tokenBudget,
      providerInfo: info,
      modelInfo: getModelInfo(model),
      safetyMargin: this.#options.safetyMargin,
      maxTokens: this.#options.maxTokens,
    });
    const serverCompaction = info?.capabilities?.includes(SERVER_COMPACTION_CAPABILITY) === true;
    return { budget, model, counter: this.counterFor(model), serverCompaction, ...(info?.id ? { providerId: info.id } : {}) };
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
 * The provider's info, or a typed error: INVALID_PROVIDER_INFO for a provider that is not one (no
 * getInfo), whose getInfo throws (the cause kept), or whose answer is not ProviderInfo;
 * PROVIDER_TIMEOUT when getInfo does not settle within `timeoutMs` (a provider that never answers
 * must not hang the request). The timer is cleared as soon as getInfo settles; a late answer is
 * ignored.
 */
async function providerInfo(provider: Provider, timeoutMs: number): Promise<ProviderInfo> {
  if (typeof provider !== "object" || provider === null || typeof (provider as { getInfo?: unknown }).getInfo !== "function") {
    throw createError("INVALID_PROVIDER_INFO", "the provider has no getInfo()", { path: "provider", expected: "a Provider: an object with getInfo()", given: provider });
  }
  let info: unknown;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const answer = Promise.resolve().then(() => provider.getInfo());
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const name = providerName(provider);
        reject(
          createError("PROVIDER_TIMEOUT", `provider ${name} did not answer getInfo() within ${timeoutMs} ms`, {
            module: "context/request-budget",
            provider: name,
            path: "provider.getInfo()",
            timeoutMs,
            hint: "fix the provider, or raise the context option providerInfoTimeoutMs",
          }),
        );
      }, timeoutMs);
    });
    info = await Promise.race([answer, timeout]);
  } catch (cause) {
    if (isAmplifierError(cause, "PROVIDER_TIMEOUT")) throw cause;
    throw createError("INVALID_PROVIDER_INFO", `provider.getInfo() threw: ${cause instanceof Error ? cause.message : String(cause)}`, { path: "provider.getInfo()", cause });
  } finally {
    clearTimeout(timer);
  }
  return validateProviderInfo(info, "provider.getInfo()");
}

/**
 * How a provider is named before its getInfo() answers (the id comes from getInfo): its own
 * `id` or `name` property when it has one, else its class name, else "(unnamed)".
 */
function providerName(provider: Provider): string {
  const p = provider as { id?: unknown; name?: unknown };
  if (typeof p.id === "string" && p.id.length > 0) return `"${p.id}"`;
  if (typeof p.name === "string" && p.name.length > 0) return `"${p.name}"`;
  const className = (provider as object).constructor?.name;
  return className && className !== "Object" ? `(class ${className})` : "(unnamed)";
}
