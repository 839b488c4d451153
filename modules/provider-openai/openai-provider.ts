import type { AmplifierEvents, ChatRequest, ChatResponse, HookBusContract, Provider, ProviderInfo } from "@amplifier-ts/contracts";
import { providerErrors, SERVER_COMPACTION_CAPABILITY } from "@amplifier-ts/contracts";
import { runProviderCall, watchedFetch, type ApiCall } from "@amplifier-ts/provider-kit";
import OpenAI from "openai";
import { callChatCompletions } from "./chat-completions.js";
import { MODULE_NAME, resolveOpenAIConfig, type OpenAIProviderConfigInput, type ResolvedOpenAIConfig } from "./openai-config.js";
import { callResponses } from "./responses-api.js";

export interface OpenAIProviderInit {
  /** The bus provider:request / provider:response / provider:error go to (the coordinator's). */
  hooks?: HookBusContract<AmplifierEvents>;
  /** Where OPENAI_API_KEY and OPENAI_BASE_URL are read when the config has none (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * A Provider on the official openai SDK: Chat Completions or the Responses API by config `api`.
 * complete() converts the window with @amplifier-ts/adapters, calls the API, converts the answer
 * back, and reports the call on the bus (runProviderCall, @amplifier-ts/provider-kit).
 */
export class OpenAIProvider implements Provider {
  readonly config: ResolvedOpenAIConfig;
  readonly client: OpenAI;
  readonly #hooks: HookBusContract<AmplifierEvents> | undefined;

  constructor(config: OpenAIProviderConfigInput, init: OpenAIProviderInit = {}) {
    this.config = resolveOpenAIConfig(config, init.env ?? process.env, () =>
      providerErrors.create("MISSING_API_KEY", undefined, { module: MODULE_NAME, path: "config.apiKey", expected: "config.apiKey or the environment variable OPENAI_API_KEY" }),
    );
    this.#hooks = init.hooks;
    const { apiKey, baseURL, timeoutMs, maxRetries } = this.config;
    // watchedFetch: the kit's clock sees the answer's bytes, so timeoutMs holds past the headers.
    this.client = new OpenAI({ apiKey, timeout: timeoutMs, maxRetries, fetch: watchedFetch, ...(baseURL === undefined ? {} : { baseURL }) });
  }

  /** The API this provider calls: `openai-chat` or `openai-responses` (the `provider` of its events). */
  get api(): "openai-chat" | "openai-responses" {
    return this.config.api === "chat" ? "openai-chat" : "openai-responses";
  }

  getInfo(): ProviderInfo {
    return {
      id: "openai",
      display_name: `OpenAI ${this.config.api === "chat" ? "Chat Completions" : "Responses"} (${this.config.model})`,
      defaults: { model: this.config.model, context_window: this.config.contextWindow, max_output_tokens: this.config.maxOutputLimit },
      // server-compaction: the Responses API compacts (context_management); a context manager then sends what the API expects.
      capabilities: ["tools", "streaming", this.api, ...(this.config.contextManagement ? [SERVER_COMPACTION_CAPABILITY] : [])],
    };
  }

  complete(request: ChatRequest): Promise<ChatResponse> {
    const site = { module: MODULE_NAME, provider: this.api, model: this.config.model };
    const { stream, timeoutMs, streamIdleTimeoutMs, maxOutputTokens, contextManagement } = this.config;
    const send = this.config.api === "chat" ? callChatCompletions : (client: OpenAI, call: ApiCall) => callResponses(client, call, contextManagement);
    return runProviderCall(
      request,
      { site, hooks: this.#hooks, stream, timeouts: { timeoutMs, streamIdleTimeoutMs }, ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }) },
      (call) => send(this.client, call),
    );
  }
}
