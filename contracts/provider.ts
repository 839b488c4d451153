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
}

export interface ChatRequest {
  messages: Message[];
  tools?: ToolDefinition[];
  model?: string;
}

export interface ChatResponse {
  message: Message;
  usage?: { inputTokens?: number; outputTokens?: number };
}

/**
 * A model provider. Only getInfo() is needed by context managers (to size the budget);
 * orchestrators call complete(). getInfo() may be sync or async.
 */
export interface Provider {
  getInfo(): ProviderInfo | Promise<ProviderInfo>;
  complete?(request: ChatRequest): Promise<ChatResponse>;
}
