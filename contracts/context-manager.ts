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

/** Options of a manual compaction (`context.compact({ focus })`). */
export interface CompactOptions {
  /** What the summary should keep above all; passed to the summarizer as `focus`. */
  focus?: string;
}

/** What a manual compaction did. */
export interface CompactResult {
  /** Whether a summary replaced part of the history in the windows from now on. */
  compacted: boolean;
  /** The strategy that summarised (`summarizing`, `summarization`). */
  strategy?: string;
  /** Messages the new summary stands for that no summary covered before. */
  summarized: number;
  /** Why nothing was compacted (nothing old enough, the summarizer failed, the check failed). */
  reason?: string;
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
  /**
   * Manual compaction, on demand: the configured summarizing strategy summarises the part of the
   * history it would cut at its next compaction now (awaited), with `focus` handed to the
   * summarizer, checks the summary, and every later window uses it. Optional in the contract; the
   * built-ins implement it (COMPACTION_UNAVAILABLE without a summarizing strategy in `strategies`).
   */
  compact?(options?: CompactOptions): Promise<CompactResult>;
}

export function isContextManager(value: unknown): value is ContextManager {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return ["addMessage", "getMessagesForRequest", "getMessages", "setMessages", "clear"].every(
    (k) => typeof v[k] === "function",
  );
}
