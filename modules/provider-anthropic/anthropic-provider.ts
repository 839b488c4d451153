import type { AmplifierEvents, ChatRequest, ChatResponse, HookBusContract, Provider, ProviderInfo } from "@amplifier-ts/contracts";
import { providerErrors, SERVER_COMPACTION_CAPABILITY } from "@amplifier-ts/contracts";
import { runProviderCall, watchedFetch } from "@amplifier-ts/provider-kit";
import Anthropic from "@anthropic-ai/sdk";
import { MODULE_NAME, resolveAnthropicConfig, type AnthropicProviderConfigInput, type ResolvedAnthropicConfig } from "./anthropic-config.js";
import { compactsOnServer } from "./context-management.js";
import { callMessages } from "./messages-api.js";

export interface AnthropicProviderInit {
  /** The bus provider:request / provider:response / provider:error go to (the coordinator's). */
  hooks?: HookBusContract<AmplifierEvents>;
  /** Where ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL are read when the config has none (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * A Provider on the official @anthropic-ai/sdk (the Messages API). complete() converts the window
 * with @amplifier-ts/adapters, calls the API, converts the answer back, and reports the call on
 * the bus (runProviderCall, @amplifier-ts/provider-kit).
 */
export class AnthropicProvider implements Provider {
  readonly config: ResolvedAnthropicConfig;
  readonly client: Anthropic;
  readonly #hooks: HookBusContract<AmplifierEvents> | undefined;

  constructor(config: AnthropicProviderConfigInput, init: AnthropicProviderInit = {}) {
    this.config = resolveAnthropicConfig(config, init.env ?? process.env, () =>
      providerErrors.create("MISSING_API_KEY", undefined, { module: MODULE_NAME, path: "config.apiKey", expected: "config.apiKey or the environment variable ANTHROPIC_API_KEY" }),
    );
    this.#hooks = init.hooks;
    const { apiKey, baseURL, timeoutMs, maxRetries } = this.config;
    // watchedFetch: the kit's clock sees the answer's bytes, so timeoutMs holds past the headers.
    this.client = new Anthropic({ apiKey, timeout: timeoutMs, maxRetries, fetch: watchedFetch, ...(baseURL === undefined ? {} : { baseURL }) });
  }

  getInfo(): ProviderInfo {
    return {
      id: "anthropic",
      display_name: `Anthropic Messages (${this.config.model})`,
      defaults: { model: this.config.model, context_window: this.config.contextWindow, max_output_tokens: this.config.maxOutputTokens },
      // server-compaction: the API compacts (compact_20260112); a context manager then sends what the API expects.
      capabilities: ["tools", "streaming", "prompt-cache", ...(compactsOnServer(this.config.contextManagement) ? [SERVER_COMPACTION_CAPABILITY] : [])],
    };
  }

  complete(request: ChatRequest): Promise<ChatResponse> {
    const { model, maxOutputTokens, cache, stream, timeoutMs, streamIdleTimeoutMs, contextManagement } = this.config;
    const timeouts = { timeoutMs, streamIdleTimeoutMs };
    return runProviderCall(request, { site: { module: MODULE_NAME, provider: "anthropic", model }, hooks: this.#hooks, stream, maxOutputTokens, timeouts }, (call) =>
      callMessages(this.client, { ...call, maxOutputTokens }, cache, contextManagement),
    );
  }
}
