import type { Message } from "./generated/message.js";
import type { ProviderInfo } from "./generated/provider-info.js";

/** A tool definition as sent to the model (OpenAI function-calling shape). */
export interface ToolDefinition {
  type: "function";
  function: {
    name: string;
    description?: string;
    parameters?: Record<string, unknown>;
  };
  /**
   * The definition a provider knows the tool by, sent to that provider instead of the function
   * shape: Anthropic's memory tool is `{ anthropic: { type: "memory_20250818", name: "memory" } }`
   * (its name is the function's). Every other provider gets the function shape, and counts use it.
   */
  native?: { anthropic?: NativeAnthropicTool };
}

/** A tool of Anthropic's own, versioned by its type (`memory_20250818`): the API knows its schema. */
export interface NativeAnthropicTool {
  type: string;
  name: string;
}

export interface ChatRequest {
  messages: Message[];
  tools?: ToolDefinition[];
  model?: string;
  /**
   * Stream the answer: the provider reads the API's stream and calls this with each piece of
   * text or thinking as it arrives, in order; complete() still resolves with the whole message.
   * A throwing onDelta aborts the call (its error is complete()'s).
   */
  onDelta?: (delta: ProviderDelta) => void;
  /** Aborts the API call; complete() then rejects. */
  signal?: AbortSignal;
}

/** One streamed piece of the answer. `index` is the content block it belongs to (the API's numbering). */
export interface ProviderDelta {
  type: "text" | "thinking";
  text: string;
  index: number;
}

/**
 * What the API billed for one call, in tokens. `inputTokens` is ALL the input the call was billed
 * for — cached parts included — so it compares with the counted request; `cacheReadTokens` and
 * `cacheWriteTokens` are the parts of it read from and written to the provider's prompt cache.
 * | API                 | inputTokens                                                   | cacheReadTokens                  | cacheWriteTokens                |
 * |---------------------|---------------------------------------------------------------|----------------------------------|---------------------------------|
 * | OpenAI Chat         | usage.prompt_tokens                                           | prompt_tokens_details.cached_tokens | 0 (automatic caching)        |
 * | OpenAI Responses    | usage.input_tokens                                            | input_tokens_details.cached_tokens | 0                             |
 * | Anthropic Messages  | input_tokens + cache_read_input_tokens + cache_creation_input_tokens | cache_read_input_tokens   | cache_creation_input_tokens     |
 *
 * `compaction` is the provider's own server-side compaction run inside the call, billed beside the
 * answer (priced apart, at the model's rates): Anthropic reports each compaction iteration in
 * `usage.iterations` (type "compaction"), whose tokens the top-level figures leave out, so the
 * figures above stay the answer's and `compaction` holds the sums of those iterations. OpenAI
 * Responses reports no split: `iterations` counts the compaction items of the output and its
 * tokens are inside the figures above (no token fields then).
 */
export interface BilledUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  compaction?: CompactionUsage;
  /**
   * Input the provider's context editing cleared before the model read it (Anthropic
   * `context_management.applied_edits[].cleared_input_tokens`: clear_tool_uses, clear_thinking):
   * sent but not billed, so `inputTokens + clearedInputTokens` is what compares with the counted request.
   */
  clearedInputTokens?: number;
}

/** The provider's server-side compaction within one call (see BilledUsage). */
export interface CompactionUsage {
  /** How many compactions the provider ran in the call. */
  iterations: number;
  /** Input billed for them (Anthropic: input + cache read + cache write of the compaction iterations, as inputTokens above). */
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/**
 * The ProviderInfo capability of a provider whose API compacts the conversation on its server
 * (Anthropic compact_20260112, OpenAI Responses context_management compaction): a context manager
 * then sends the history the API expects (contracts/CONTEXT.md) instead of compacting it itself.
 */
export const SERVER_COMPACTION_CAPABILITY = "server-compaction";

export interface ChatResponse {
  message: Message;
  usage?: BilledUsage;
  /** The model that answered, as the API names it (`gpt-4o-2024-08-06`). */
  model?: string;
  /** Why the model stopped, in the API's words (`stop`, `tool_calls`, `end_turn`, `max_tokens`, …). */
  stopReason?: string;
}

/**
 * A model provider. Only getInfo() is needed by context managers (to size the budget);
 * orchestrators call complete(). getInfo() may be sync or async.
 */
export interface Provider {
  getInfo(): ProviderInfo | Promise<ProviderInfo>;
  complete?(request: ChatRequest): Promise<ChatResponse>;
}
