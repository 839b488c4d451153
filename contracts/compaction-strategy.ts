import type { Message } from "./generated/message.js";
import type { HookBusContract } from "./hook-bus.js";
import type { ToolDefinition } from "./provider.js";
import type { HistorySearch } from "./search.js";

/** What a strategy may count with: the request-accounting subset of a TokenCounter (TOKENS.md). */
export interface StrategyCounter {
  readonly model: string;
  readonly encoding: string;
  readonly replyPriming: number;
  countMessage(message: Message): number;
  countMessages(messages: readonly Message[]): number;
  countText(text: string): number;
  countTools(tools: readonly ToolDefinition[]): number;
}

/** Per-message decisions a strategy records for explain (`getMessagesForRequest(…, { explain: true })`). */
export type ExplainDecision = "kept" | "truncated" | "summarized" | "dropped";

export interface ExplainRecorder {
  /** Record what `strategy` did to the message with this id, and why (one short sentence). */
  record(messageId: string, decision: ExplainDecision, strategy: string, reason: string): void;
  /** False when nobody asked for an explanation: strategies may skip building reason strings. */
  readonly enabled: boolean;
}

/** Writes a summary of messages; see contracts/STRATEGIES.md. */
export interface Summarizer {
  readonly name: string;
  /**
   * `focus`: what the summary should keep above all (manual compaction, `context.compact({ focus })`);
   * a summarizer that cannot steer may ignore it.
   */
  summarize(messages: readonly Message[], options: { previousSummary?: string; maxTokens: number; signal?: AbortSignal; focus?: string }): Promise<string>;
}

/** What a strategy gets besides the messages. */
export interface CompactionContext {
  /** Tokens the whole request may use. */
  readonly budget: number;
  readonly counter: StrategyCounter;
  readonly tools?: readonly ToolDefinition[];
  readonly hooks?: HookBusContract;
  readonly explain: ExplainRecorder;
  /** The summarizer configured for the context module, when there is one. */
  readonly summarizer?: Summarizer;
  /** Search over the stored history (contracts/search.ts), when the context module has one (`recall` uses it). */
  readonly search?: HistorySearch;
  readonly signal?: AbortSignal;
}

/**
 * One step of a compaction pipeline: takes messages, returns messages (a new array; never mutates
 * its input). A strategy may be lossy; the context manager still enforces the budget and every
 * window invariant after the pipeline (contracts/CONTEXT.md). Instances are created per context
 * manager, so a strategy may keep state between calls (e.g. its last cut, for cache-friendly cuts).
 */
export interface CompactionStrategy {
  readonly name: string;
  compact(messages: readonly Message[], context: CompactionContext): readonly Message[] | Promise<readonly Message[]>;
  /**
   * Optional: stops the strategy's background work (a summary prepared ahead, its retry timer) and
   * resolves once none is left. The context manager's close() calls it; the strategy schedules
   * nothing afterwards.
   */
  close?(): Promise<void>;
}
