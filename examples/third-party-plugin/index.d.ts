/**
 * Types of amplifier-module-context-example. The amplifier-ts shapes it touches are written out
 * here (structurally compatible with amplifier-ts's own), so the package type-checks without
 * amplifier-ts installed — it is an optional peer.
 */

export type Role = "system" | "developer" | "user" | "assistant" | "tool";

export interface TextBlock { type: "text"; text: string }
export interface ImageBlock { type: "image"; source?: { type: "base64" | "url"; media_type?: string; data?: string; url?: string }; width?: number; height?: number }

export type ContentBlock =
  | TextBlock
  | ImageBlock
  | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" }; width?: number; height?: number }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content?: string | Array<TextBlock | ImageBlock>; is_error?: boolean }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "redacted_thinking"; data: string };

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface Message {
  role: Role;
  content: string | ContentBlock[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  metadata?: {
    id?: string;
    timestamp?: string;
    critical?: boolean;
    ephemeral?: boolean;
    source?: string;
    runId?: string;
    [key: string]: unknown;
  };
}

export interface ProviderLike {
  getInfo():
    | { id: string; defaults?: { model?: string; context_window?: number; max_output_tokens?: number; [key: string]: unknown } }
    | Promise<{ id: string; defaults?: { model?: string; context_window?: number; max_output_tokens?: number; [key: string]: unknown } }>;
}

export interface WindowRequestOptions {
  /** Request-only messages (ephemeral hook injections): appended last, counted, never stored. */
  extraMessages?: Message[];
}

/** What the host's "tokens" capability offers (amplifier-ts: `{ getTokenCounter }` from core/tokens). */
export interface TokensCapability {
  getTokenCounter(model: string): { countMessage(message: Message): number; readonly replyPriming: number };
}

export interface RecentTurnsConfig {
  /** Most user turns a window holds; critical messages come on top. Default 8. */
  maxTurns?: number;
  /** Budget when the request names none and the provider reports no context window. Default 100 000. */
  maxTokens?: number;
  /** Tokens kept free below context_window − max_output_tokens. Default 1 000. */
  safetyMargin?: number;
  /** Model counted for when the provider names none. Default "gpt-4o". */
  model?: string;
}

export interface RecentTurnsInit extends RecentTurnsConfig {
  hooks?: { emit(event: string, data: unknown): unknown };
  /** Returns the host's "tokens" capability (or undefined: counting falls back to a proven upper bound). */
  tokens?: () => unknown;
}

/** The five context-manager methods of amplifier-ts (contracts/context-manager.ts), plus clearRun. */
export declare class RecentTurnsContext {
  constructor(init?: RecentTurnsInit);
  readonly options: Required<RecentTurnsConfig>;
  addMessage(message: Message): Promise<void>;
  getMessagesForRequest(tokenBudget?: number, provider?: ProviderLike, options?: WindowRequestOptions): Promise<Message[]>;
  getMessages(): Promise<Message[]>;
  setMessages(messages: Message[]): Promise<void>;
  clear(): Promise<void>;
  clearRun(runId: string): Promise<void>;
}

export type ContextExampleErrorCode = "INVALID_MESSAGE" | "INVALID_BUDGET" | "BUDGET_TOO_SMALL" | "INVALID_MODULE_CONFIG" | "INVALID_ARGUMENT";

export declare class ContextExampleError extends Error {
  constructor(code: ContextExampleErrorCode, message: string, details?: Record<string, unknown>);
  readonly code: ContextExampleErrorCode;
  /** Always names the module; plus path, expected, given, and for BUDGET_TOO_SMALL budget, systemTokens, criticalTokens, required. */
  readonly details: { module: "amplifier-module-context-example"; [key: string]: unknown };
}

/** The coordinator as this module uses it (a subset of amplifier-ts's CoordinatorContract). */
export interface CoordinatorLike {
  mount(point: "context", module: RecentTurnsContext): Promise<void>;
  getCapability(name: string): unknown;
  readonly hooks?: { emit(event: any, data: any): unknown };
}

export declare const meta: {
  readonly name: "amplifier-module-context-example";
  readonly version: string;
  readonly kind: "context";
  readonly description: string;
  readonly configSchema: Record<string, unknown>;
};

export declare function mount(coordinator: CoordinatorLike, config?: RecentTurnsConfig): Promise<RecentTurnsContext>;
