/**
 * What the Inspector's page reads: the JSON its data endpoints answer and the self-contained
 * report embeds. One shape for both, so the page renders a served session and a report alike.
 *
 * | shape | produced by | holds |
 * |---|---|---|
 * | `InspectorSessionSummary` | the server's session list | counts and last activity of one session of one source |
 * | `InspectorSession` | the server's session route, the report | the session's messages as `MessageView`s, its memory events, its analysis |
 * | `RecordedWindow` | the context manager's window records (contracts/window-record.ts), read beside the session | per turn: what was ACTUALLY sent — budget, model, tool definitions, decisions |
 * | `SessionAnalysis` | an analyzer (the umbrella's replay, `analyzeSession`) | a SIMULATION: per turn, the window a replay under its budget and model builds, and why |
 *
 * Every string in these shapes is untrusted content (a message, a tool's output, a reason): the
 * page renders it as text, never as markup.
 */
import type { MemoryEventJson, SessionSpendSummary } from "@amplifier-ts/contracts";

/** One session of one source, as the session list shows it. */
export interface InspectorSessionSummary {
  /** The source's name ("jsonl", "postgres", "live" …): a session id is unique within its source. */
  source: string;
  sessionId: string;
  messages: number;
  /** Memory events of the session (0 when the server has no memory). */
  events: number;
  /** ISO-8601 time of the newest message or event, when known. */
  lastActivity?: string;
  /** An in-process session whose new turns are pushed (server-sent events). */
  live: boolean;
}

/** A tool call as the timeline shows it. */
export interface ToolCallView {
  id: string;
  name: string;
  /** The arguments as JSON text. */
  arguments: string;
}

/** A stored message reduced to what the page shows (built on the server: messageViews()). */
export interface MessageView {
  /** Position in the stored history. */
  index: number;
  id?: string;
  role: string;
  /** Tool name (tool messages) or author name. */
  name?: string;
  timestamp?: string;
  /** Text, thinking and tool result text, in content order, as plain text. */
  text: string;
  toolCalls: ToolCallView[];
  /** Ids of the calls this message answers (tool messages, tool_result blocks). */
  resultFor: string[];
  /** Images the message holds (never loaded: the page shows the count). */
  images: number;
  /** A hook turn note (`metadata.scope: "turn"`). */
  note: boolean;
  ephemeral: boolean;
  critical: boolean;
  /** A summary message: the ids it covers. */
  summaryOf?: string[];
  /** What the message costs alone (countMessage), when an analysis counted it. */
  tokens?: number;
}

/** The decision vocabulary of a window: explain's decisions, plus "recalled" (kept by a strategy that brought it in). */
export type WindowDecisionKind = "kept" | "truncated" | "summarized" | "recalled" | "dropped";

/** Consecutive stored messages [from, to) with one decision, strategy and reason (run-length: a turn's explanation stays small). */
export interface DecisionRun {
  from: number;
  to: number;
  decision: WindowDecisionKind;
  /** The strategy that decided: a pipeline strategy's name, "window" (the assembler) or "pipeline". */
  strategy: string;
  reason: string;
  /** The assembler's reason code (`in-window`, `before-cut` …; "removed-by-pipeline") when it is known: the page words the "by" column from it. */
  code?: string;
}

/** One model call of the session: the window built before an assistant message. */
export interface AnalyzedTurn {
  turn: number;
  /** Index of the assistant message the call produced. */
  messageIndex: number;
  historyMessages: number;
  historyTokens: number;
  windowMessages: number;
  windowTokens: number;
  budget: number;
  /** Share (0-1) of the previous window's tokens that start this window unchanged. */
  prefixKept: number;
  /** Window tokens of system/developer instructions. */
  instructionTokens: number;
  /** Window tokens of the kept conversation (messages, notes, summaries, synthetic results, reply priming). */
  historyKeptTokens: number;
  /** Window tokens of tool definitions. */
  toolTokens: number;
  /** Cached input of the call: billed (`metadata.usage`) or simulated (replay --cache). */
  cache?: { inputTokens: number; cachedTokens: number; billed: boolean };
  /** Why each stored message (0 … historyMessages-1) is or is not in the window; absent when the module offers no explain. */
  decisions?: DecisionRun[];
  /** Tokens a truncated message costs in this window, by stored index. */
  truncatedTokens?: Record<number, number>;
}

export interface SessionAnalysis {
  module: string;
  model: string;
  /** The budget the replay used when one was fixed (else each turn's `budget`: the model's window − output − margin). */
  budget?: number;
  turns: AnalyzedTurn[];
  /** What the session spent under the simulation, three ways (the replay's `summary.spend`); the page's Spend panel. */
  spend?: SpendFigures;
}

/**
 * A session's spend, split as the context manager splits its bills (issue 29 §2): the conversation
 * (input, cache reads apart, output), compaction (summarizer calls and provider compaction) and
 * cache writes; USD at the model's list prices (absent without prices). The umbrella's replay
 * computes it (src/replay/replay-spend.ts).
 */
export type SpendFigures = SessionSpendSummary;

/** The budget and model a simulation replays under (the page's control; absent = the server's defaults). */
export interface SimulationOptions {
  budget?: number;
  model?: string;
}

/** One model call as the context manager recorded it when it was made: what was actually sent. */
export interface RecordedWindow {
  /** The turn (1-based, the assistant messages in order) whose call this window was. */
  turn: number;
  /** Index of the assistant message the call produced. */
  messageIndex: number;
  /** ISO-8601 time of the request. */
  at: string;
  model: string;
  budget: number;
  historyMessages: number;
  historyTokens: number;
  windowMessages: number;
  windowTokens: number;
  instructionTokens: number;
  /** Window tokens of the kept conversation: window − instructions − tool definitions. */
  historyKeptTokens: number;
  toolTokens: number;
  /** The tool definitions sent, each with what it costs alone. */
  tools: Array<{ name: string; tokens: number }>;
  /** Pipeline strategies that changed something, then "window". */
  strategies: string[];
  decisions: DecisionRun[];
}

/** One session as the page shows it. */
export interface InspectorSession {
  source: string;
  sessionId: string;
  live: boolean;
  messages: MessageView[];
  events: MemoryEventJson[];
  /** What each turn actually sent, from the context manager's records (absent: the session has none — the page then says every window it shows is a simulation). */
  recorded?: RecordedWindow[];
  /** Why the session's records could not be read (the page falls back to the simulation and says so). */
  recordError?: string;
  analysis?: SessionAnalysis;
  /** Why there is no analysis (no analyzer, or it failed): shown instead of the turn views. */
  analysisError?: string;
  /** The analysis was left out (asked for without it): the page fetches it next (SessionAnalysisResult). */
  analysisPending?: boolean;
}

/** A session's analysis on its own (the page asks for it after the messages, which come fast). */
export interface SessionAnalysisResult {
  analysis?: SessionAnalysis;
  analysisError?: string;
  /** What each message costs alone, by position. */
  tokens?: number[];
  /** Asked for without waiting (`wait=false`) while the analysis runs: how far it is. The page asks again. */
  analysisProgress?: AnalysisProgress;
}

/** An analysis under way: turns replayed so far of the session's turns. */
export interface AnalysisProgress {
  turnsDone: number;
  turns: number;
}

/** What the self-contained report embeds. */
export interface InspectorReport {
  title: string;
  generatedAt: string;
  session: InspectorSession;
}
