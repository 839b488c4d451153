/**
 * The `summarizer` key of the built-in context modules' config: which Summarizer the summarising
 * strategies (`summarization`, `summarizing`) use.
 *
 * | config value                                        | summarizer |
 * |-----------------------------------------------------|------------|
 * | absent, `"extractive"`, `{ "type": "extractive" }`  | ExtractiveSummarizer: offline, no model, counts with the request's model |
 * | `"provider"`, `{ "type": "provider", "provider"?, "model"? }` | ProviderSummarizer over a mounted provider: the one named, else the first mounted; `model` defaults to the provider's own |
 *
 * The provider is looked up when a summary is needed, not at mount (providers usually mount after
 * the context module). When none is mounted then, the summary fails like any summarizer failure
 * (SUMMARIZER_FAILED): the strategy drops the old messages instead and `context:summary_failed`
 * says why — the request itself never fails because of it.
 */
import { z } from "zod";
import type { Summarizer } from "@amplifier-ts/contracts";
import type { CoordinatorContract } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { Provider } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import { ProviderSummarizer } from "./provider-summarizer.js";

export const summarizerConfigSchema = z.union([
  z.enum(["extractive", "provider"]),
  z.object({ type: z.literal("extractive") }).strict(),
  z.object({ type: z.literal("provider"), provider: z.string().min(1).optional(), model: z.string().min(1).optional() }).strict(),
]);
export type SummarizerConfig = z.output<typeof summarizerConfigSchema>;

/** How a context module finds a mounted provider: by name, or the first one when no name is given. */
export type ProviderLookup = (name: string | undefined) => Provider | undefined;

/** The lookup over a coordinator's `providers` mount point. */
export function providerLookup(coordinator: CoordinatorContract): ProviderLookup {
  return (name) => {
    if (name !== undefined) return coordinator.get("providers", name);
    return Object.values(coordinator.get("providers"))[0];
  };
}

/**
 * The Summarizer a config value asks for, or undefined for the extractive default (the strategies
 * build it themselves with the request's token counter).
 */
export function configuredSummarizer(config: SummarizerConfig | undefined, lookup: ProviderLookup): Summarizer | undefined {
  if (config === undefined || config === "extractive" || (typeof config === "object" && config.type === "extractive")) return undefined;
  const { provider: name, model } = typeof config === "object" ? config : { provider: undefined, model: undefined };
  return new MountedProviderSummarizer(lookup, name, model);
}

class MountedProviderSummarizer implements Summarizer {
  readonly name: string;
  #cached: { provider: Provider; summarizer: ProviderSummarizer } | undefined;

  constructor(
    readonly lookup: ProviderLookup,
    readonly providerName: string | undefined,
    readonly model: string | undefined,
  ) {
    this.name = `provider:${providerName ?? "default"}`;
  }

  summarize(messages: readonly Message[], options: { previousSummary?: string; maxTokens: number; signal?: AbortSignal }): Promise<string> {
    const provider = this.lookup(this.providerName);
    if (provider === undefined || typeof provider.complete !== "function") {
      return Promise.reject(
        createError("SUMMARIZER_FAILED", this.providerName ? `no provider named "${this.providerName}" with complete() is mounted` : "no provider with complete() is mounted", {
          module: "summarizer",
          path: "summarizer.provider",
          expected: "a mounted provider with complete(request)",
          given: this.providerName ?? null,
          hint: 'mount a provider, or set "summarizer": "extractive" (offline)',
        }),
      );
    }
    if (this.#cached?.provider !== provider) {
      this.#cached = { provider, summarizer: new ProviderSummarizer(provider, this.model ? { model: this.model } : {}) };
    }
    return this.#cached.summarizer.summarize(messages, options);
  }
}
