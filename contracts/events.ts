import type { ContentBlock, Message, Role } from "./generated/message.js";
import type { BilledUsage, ToolDefinition } from "./provider.js";
import type { ToolResult } from "./tool.js";
import type { CompactionCostDecision, SpendPart, SpendReport } from "./compaction-cost.js";

/**
 * The one typed event map of amplifier-ts: event name → payload type.
 *
 * Names follow `namespace:action` (lowercase; an optional third segment such as `:debug` marks a
 * variant). The standard names are amplifier-core's canonical events, so hooks port unchanged.
 * A payload of `undefined` means the event carries nothing: `hooks.emit("cancel:completed")`.
 *
 * Third parties add their own events by module augmentation of the module that exports the map
 * (the package root re-exports it); the bus then types them like ours:
 *
 * ```ts
 * declare module "amplifier-ts" {
 *   interface AmplifierEvents { "memory:recall": { query: string; hits: number } }
 * }
 * ```
 *
 * Payload fields are camelCase. Fields marked optional may be omitted by emitters that cannot
 * know them; hooks must not rely on them being present.
 *
 * Each standard event is a decision or a notification (EVENT_KINDS, contracts/event-kinds.ts):
 * a notification's handlers may only observe. Augmented events are decisions.
 */
export interface AmplifierEvents extends StandardEvents {}

/** The standard events: the map before any augmentation, the domain of EVENT_KINDS. */
export interface StandardEvents {
  // --- session lifecycle -----------------------------------------------------------------
  "session:start": { sessionId: string; parentId?: string; config?: Record<string, unknown> };
  "session:end": { sessionId: string; status?: "completed" | "cancelled" | "failed"; error?: Error };
  "session:resume": { sessionId: string; messageCount: number };
  "session:fork": { sessionId: string; parentId: string };

  // --- prompt lifecycle ------------------------------------------------------------------
  "prompt:submit": { prompt: string; runId?: string };
  "prompt:complete": { prompt?: string; response: string; runId?: string };

  // --- planning (optional orchestration phases) ------------------------------------------
  "plan:start": { plan?: string } | undefined;
  "plan:end": { plan?: string } | undefined;

  // --- execution (orchestrator loop) -----------------------------------------------------
  "execution:start": { prompt?: string; runId?: string } | undefined;
  "execution:end": { status?: "completed" | "cancelled" | "failed"; runId?: string } | undefined;
  "orchestrator:complete": { orchestrator?: string; turns?: number; status?: "completed" | "cancelled" | "failed"; response?: string };

  // --- provider calls --------------------------------------------------------------------
  /**
   * One call is about to be sent: the window, its tools, and (when the emitter knows them) its
   * counted size, the cap on the answer's tokens and whether it streams.
   */
  "provider:request": { provider: string; model?: string; messages: Message[]; tools?: ToolDefinition[]; tokens?: number; maxOutputTokens?: number; stream?: boolean };
  /** The answer of one call; `usage` is what the API billed (input with cache read / write, output — see BilledUsage). */
  "provider:response": {
    provider: string;
    model?: string;
    message: Message;
    usage?: BilledUsage;
    durationMs?: number;
    stopReason?: string;
  };
  "provider:error": { provider: string; model?: string; error: Error; retryable?: boolean };
  /**
   * A usage figure of an answer was not a non-negative safe integer (or the answer had no usage):
   * the answer stands, its usage is dropped. `field` is the API's own path (`usage.prompt_tokens`).
   */
  "provider:usage_invalid": { provider: string; model?: string; field: string; given: unknown; expected: string };

  // --- streamed content (real-time display) ----------------------------------------------
  "content_block:start": { index: number; type: ContentBlock["type"] };
  "content_block:delta": { index: number; delta: string };
  "content_block:end": { index: number; block?: ContentBlock };
  "thinking:delta": { delta: string };
  "thinking:final": { text: string };

  // --- sub-agents ------------------------------------------------------------------------
  /** An orchestrator hands a task to a sub-agent (child session); the memory recorder logs it on both sessions. */
  "delegation:request": { agent: string; task: string; childSessionId?: string };
  /** The sub-agent's answer came back. */
  "delegation:response": { agent: string; response: string; childSessionId?: string };

  // --- tool invocations ------------------------------------------------------------------
  "tool:pre": { tool: string; callId: string; input: Record<string, unknown> };
  "tool:post": { tool: string; callId: string; input: Record<string, unknown>; result: ToolResult; durationMs?: number };
  "tool:error": { tool: string; callId: string; input: Record<string, unknown>; error: Error };

  // --- context management ----------------------------------------------------------------
  /** Before a window is compacted: the history's size against the budget. */
  "context:pre_compact": { messageCount: number; tokens: number; budget: number; decision?: CompactionCostDecision };
  /**
   * After compaction. `removed` / `truncated` / `summarized` count messages; `strategies` names
   * the strategies that ran, in order; `repaired` is present when the window had to be repaired.
   * `source`: who compacted — absent or "engine": this library's window and strategies;
   * "provider": the provider's server-side compaction, reported when its answer carries a
   * compaction block (strategies [`provider:<provider>`]; contracts/HOOKS.md gives the fields).
   */
  "context:post_compact": {
    messageCount: number;
    tokens: number;
    removed: number;
    truncated: number;
    summarized: number;
    strategies: string[];
    durationMs: number;
    repaired?: ContextRepairReport;
    source?: "engine" | "provider";
    /** Under config `compactionPolicy: "cost"`: why this request compacted (contracts/compaction-cost.ts). */
    decision?: CompactionCostDecision;
  };
  /**
   * A bill the context manager recorded, split (contracts/compaction-cost.ts): `kind` "summarizer"
   * when the context's summarizer made the call; this bill's parts, and the session's totals so far.
   */
  "context:spend": { model: string; kind: "conversation" | "summarizer"; priced: boolean; conversation: SpendPart; compaction: SpendPart; cacheWrites: { tokens: number; usd: number }; session: SpendReport };
  /** A compaction strategy threw (or returned garbage): it was skipped and the request went on (contracts/STRATEGIES.md). */
  "context:strategy_failed": { strategy: string; index: number; error: string; code?: string };
  /** A summarizer threw or timed out: the strategy dropped the old messages instead of summarising them (contracts/STRATEGIES.md). */
  "context:summary_failed": { strategy: string; summarizer: string; reason: string; code?: string; dropped?: number; background?: boolean; attempt?: number; retryInMs?: number };
  /** A summary prepared in the background (`background: true`) is ready and passed its check; it is swapped in when the window would overflow. */
  "context:summary_prepared": { strategy: string; summarizer: string; covers: number; tokens: number; durationMs: number; attempt: number };
  /** A summary failed its check (empty, over budget, the open task or the files/ids of the cut part missing, or a `context:summary_check` handler denied it): it replaces nothing. */
  "context:summary_rejected": { strategy: string; summarizer: string; reason: string; missing?: string[]; background?: boolean };
  /** A prepared summary replaced part of the history in the window (the swap). `waitedMs` when the request waited for it (`wait: true`). */
  "context:summary_swapped": { strategy: string; summarizer: string; covers: number; tokens: number; manual?: boolean; waitedMs?: number };
  /** A decision point before a summary replaces anything: a handler that answers `deny` rejects it (a stricter check than the built-in one). */
  "context:summary_check": { strategy: string; summarizer: string; summary: string; task?: string; mentions: string[]; covers: number };
  /** Content entered the context from outside the conversation (hook injection, file include). */
  "context:include": { source: string; content: string; ephemeral: boolean; role?: Role; hook?: string; event?: string };
  /** Persistent storage could not be used; the module now keeps history in memory. */
  "context:storage_fallback": { reason: string; storagePath?: string; store?: string };
  /** Storage still works but lost a guarantee (e.g. a torn line skipped on open, fsync failing). */
  "context:storage_degraded": { reason: string; storagePath?: string; store?: string; detail?: Record<string, unknown> };
  /** Storage that was degraded works fully again (e.g. a hybrid store's hot side is back and rebuilt). */
  "context:storage_restored": { reason: string; store?: string; detail?: Record<string, unknown> };
  /** A session file was opened after a crash: torn or corrupt lines were skipped (never fatal). */
  "context:storage_recovered": { sessionId: string; storagePath?: string; store?: string; skippedLines: number; skippedBytes: number };
  "context:message_added": { role: Role; id?: string; messageCount: number; tokens?: number };
  /**
   * addMessage stored a tool result (a `tool` message, or a user message's `tool_result` blocks)
   * that answers no open call — its call is not in the history, or was already answered. It is
   * kept as given, but no window sends it (invariant 3); usually an orchestrator bug: a result
   * added before its assistant message, or a wrong id. `callIds` are the ids those results named.
   */
  "context:orphan_tool_result": { role: Role; id?: string; callIds: string[]; messageCount: number };
  /**
   * A single input larger than the context manager's `spill.share` of the budget (a tool result, or
   * a user message) was written to the session's blob store under `handle`; the history keeps it
   * whole, windows carry an excerpt of `excerptTokens` instead of its `tokens`; `bytes` is the
   * stored UTF-8 text. Once per message (a resume that finds the blob stored emits nothing). The
   * read_stored_result tool reads it by `handle`.
   */
  "context:spill": { messageId: string; role: "tool" | "user"; toolCallId?: string; tokens: number; excerptTokens: number; bytes: number; handle: string };
  /**
   * A provider's bill was matched with the window it was for (contracts/TOKENS.md §8): the window's
   * counted size, its raw count (factor 1), the billed input, their ratio and the factor the next
   * window of the model is counted with. `accepted: false` (with `reason`) for an absurd report.
   */
  "context:calibration": {
    model: string;
    counted: number;
    raw: number;
    billed: number;
    drift?: number;
    ratio?: number;
    accepted: boolean;
    reason?: string;
    previousFactor: number;
    factor: number;
    samples: number;
    applied: boolean;
  };

  // --- user display ----------------------------------------------------------------------
  /** A message for the user's screen (from a hook's `user_message`). */
  "user:message": { message: string; level: "info" | "warning" | "error"; hook?: string; event?: string };
  "user:notification": { message: string; level?: "info" | "warning" | "error"; source?: string };

  // --- artifacts, policy, approvals ------------------------------------------------------
  "artifact:write": { path: string; bytes?: number };
  "artifact:read": { path: string; bytes?: number };
  "policy:violation": { policy: string; reason: string; hook?: string };
  "approval:required": { prompt: string; options: string[]; hook: string; event: string; timeout?: number };
  "approval:granted": { prompt: string; decision: string; hook: string; event: string };
  "approval:denied": { prompt: string; reason: string; hook: string; event: string; decision?: string };

  // --- cancellation ----------------------------------------------------------------------
  "cancel:requested": { immediate: boolean; reason?: string };
  "cancel:completed": undefined;

  // --- kernel ----------------------------------------------------------------------------
  /** A hook handler threw, timed out or returned something that is not a HookResult. */
  "hook:error": { event: string; hook: string; error: Error; failClosed: boolean };
  /** An optional module failed to mount and was skipped (required ones stop the session). */
  "module:mount_failed": { module: string; point: string; error: Error; optional: boolean };
  "module:mounted": { module: string; point: string; name?: string };
  "module:unmounted": { point: string; name?: string };
}

/**
 * What a context manager reports when it repaired a window (see contracts/CONTEXT.md,
 * contracts/WINDOW.md): the counts and the placeholder flag the built-ins have always sent, and
 * the ids behind the counts.
 */
export interface ContextRepairReport {
  /** Calls in the window that got a synthetic "interrupted" result (interruptedCalls.length). */
  syntheticResults: number;
  /** Tool-call ids that had no result and got a synthetic "interrupted" result in the window. */
  interruptedCalls: string[];
  /** Orphan results (tool messages or tool_result blocks) dropped from the window. */
  orphansDropped: number;
  /** The call ids those orphan results named. */
  orphanResults: string[];
  /** A user placeholder was put before the first kept message (a window starts with a user turn). */
  placeholder: boolean;
}

/** Every event name the map knows (standard plus augmented). */
export type AmplifierEventName = Extract<keyof AmplifierEvents, string>;

/** The syntax every event name obeys: `namespace:action`, optionally `:variant`. */
export const EVENT_NAME_PATTERN = /^[a-z][a-z0-9_-]*(?::[a-z][a-z0-9_-]*){1,2}$/;

export function isValidEventName(name: unknown): name is string {
  return typeof name === "string" && EVENT_NAME_PATTERN.test(name);
}
