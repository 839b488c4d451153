import type { Message } from "./generated/message.js";
import type { Provider, ToolDefinition } from "./provider.js";

/** Options of one window request; `explain` asks for a per-message account (see contracts/CONTEXT.md). */
export interface WindowRequestOptions {
  explain?: boolean;
  /** Messages used for this request only (ephemeral hook injections); never stored. */
  extraMessages?: Message[];
  /**
   * The tool definitions sent with this request: the window plus their tokens fit the budget.
   * Given, they win over any tools the manager holds (a built-in's setTools()) for this request;
   * `[]` means none. Absent, the manager counts the tools it holds, if any.
   */
  tools?: ToolDefinition[];
}

/**
 * The context-manager contract: the five methods every context module implements.
 * All methods are async. Windows are new arrays of copies; the stored history never changes
 * while a window is assembled. See contracts/CONTEXT.md for the invariants every window keeps.
 */
export interface ContextManager {
  addMessage(message: Message): Promise<void>;
  getMessagesForRequest(tokenBudget?: number, provider?: Provider, options?: WindowRequestOptions): Promise<Message[]>;
  getMessages(): Promise<Message[]>;
  setMessages(messages: Message[]): Promise<void>;
  clear(): Promise<void>;
  /** Drop the messages of one run (metadata.runId). Optional in the contract; built-ins implement it. */
  clearRun?(runId: string): Promise<void>;
  /**
   * The session the manager keeps its history under (a persistent module's `sessionId` config, else
   * the coordinator's). Optional; when present, whatever else records the session (the memory
   * recorder) files under the same id, so the Inspector joins them.
   */
  readonly sessionId?: string;
  /**
   * Resolves once every stored message is indexed for search and — with an embedder — embedded
   * (a manager that embeds does so off the turn's path, so windows never wait for it). For batch
   * jobs and evaluations, and what outside checks call before they measure. Optional in the
   * contract; the built-ins implement it. A manager without an index may resolve at once.
   */
  indexReady?(): Promise<void>;
}

export function isContextManager(value: unknown): value is ContextManager {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return ["addMessage", "getMessagesForRequest", "getMessages", "setMessages", "clear"].every(
    (k) => typeof v[k] === "function",
  );
}
