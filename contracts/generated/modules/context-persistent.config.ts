/* eslint-disable */
/**
 * Generated from contracts/schemas/modules/context-persistent.config.schema.json by `npm run contracts` (contracts/generate.mjs) — do not edit.
 * The schemas are emitted from their zod sources (contracts/emit-schemas.mjs): edit those and run
 * `npm run contracts`; test/contracts/generated-fresh.test.ts fails while this file is stale.
 */

/**
 * Config of the built-in context-persistent module (history kept in a HistoryStore; JSONL files by default).
 */
export interface ContextPersistentConfig {
  /**
   * Budget when neither the caller, the provider nor the model registry gives one.
   */
  maxTokens?: number;
  /**
   * Tokens kept free below context_window - max_output_tokens.
   */
  safetyMargin?: number;
  /**
   * Compaction starts when the history passes this share of the budget.
   */
  compactThreshold?: number;
  /**
   * Compaction cuts down to this share of the budget (must be <= compactThreshold).
   */
  compactTarget?: number;
  /**
   * Model used to count tokens when the provider does not name one.
   */
  model?: string;
  /**
   * The agent whose history this is: with a store, the session is kept under (agentId, sessionId), so agents sharing a store and a session id never see each other's messages. 1-128 characters of [A-Za-z0-9._-], no leading dot, no '..'. Default "default" (the history of stores written before agents).
   */
  agentId?: string;
  /**
   * permanent: kept; run: a run's messages are cleared when it ends; none: never persisted.
   */
  retention?: "permanent" | "run" | "none";
  /**
   * How long getMessagesForRequest waits for provider.getInfo(), in ms, before it fails with PROVIDER_TIMEOUT (default 10000, at most 600000).
   */
  providerInfoTimeoutMs?: number;
  /**
   * Multiplier for counts of models whose tokenizer is not public.
   */
  safetyFactor?: number;
  /**
   * Compaction pipeline run before the window assembler, in order (contracts/STRATEGIES.md). Each entry names a strategy and its camelCase options; options are validated by the strategy. Default []: the window assembler's hysteresis cut alone.
   */
  strategies?: {
    /**
     * Strategy name: sliding-window, tool-result-compaction, selective-tool-call, summarization, truncation, token-budget, …
     */
    use: string;
    [k: string]: unknown;
  }[];
  /**
   * Summarizer used by the summarising strategies (summarization, summarizing). "extractive" (default): offline, no model. "provider": a mounted provider's complete(); the object form names the provider (default: the first mounted) and the model (default: the provider's own). With no provider mounted when a summary is needed, the strategy drops the old messages instead and emits context:summary_failed.
   */
  summarizer?:
    | ("extractive" | "provider")
    | {
        type: "extractive";
      }
    | {
        type: "provider";
        provider?: string;
        model?: string;
      };
  /**
   * Directory of the JSONL session files.
   */
  storagePath?: string;
  /**
   * Session to open; defaults to the coordinator's session id.
   */
  sessionId?: string;
  /**
   * Fail at mount when the storage cannot be used, instead of falling back to memory.
   */
  strict?: boolean;
  /**
   * always: each addMessage is on disk when it resolves; batch: concurrent appends share one fsync (same guarantee, more throughput); never: the OS decides (fastest, a crash may lose recent messages).
   */
  fsync?: "always" | "batch" | "never";
  /**
   * Which HistoryStore to use (default: JSONL under storagePath).
   */
  store?: {
    type: "jsonl" | "memory" | "postgres" | "redis" | "hybrid";
    [k: string]: unknown;
  };
}
