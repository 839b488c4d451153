import type { Message } from "@amplifier-ts/contracts";
import type { AnalyzedTurn, SessionAnalysis } from "@amplifier-ts/inspector";
import type { AnalyzeSessionOptions } from "./session-analysis.js";
import type { ReplayResult, ReplayTurn } from "./run-replay.js";

/**
 * What the server's thread and an analysis thread (session-analysis-worker.ts) say to each other.
 * Every message is small: the session goes over in slices, the result comes back in parts the
 * server asks for one at a time, so neither copy holds the server's event loop long.
 *
 * | from | message | when |
 * |---|---|---|
 * | server | `start` (the options), then `messages` slices, then `run` | an analysis begins on an idle thread |
 * | thread | `progress` | after each replayed turn |
 * | thread | `part` (tokens; a run of turns; the last one `done` with the summary) | when the analysis is done, then after each `more` |
 * | server | `more` | after each part but the last |
 * | thread | `failed` (the error's code, message and details) | the analysis threw |
 */
export type ToAnalysisThread =
  | { type: "start"; options: ThreadAnalysisOptions }
  | { type: "messages"; messages: Message[] }
  | { type: "run" }
  | { type: "more" };

export type FromAnalysisThread =
  | { type: "progress"; turnsDone: number; turns: number }
  | { type: "part"; part: AnalysisPart }
  | { type: "failed"; error: ThreadError };

/** What crosses to the thread of AnalyzeSessionOptions: everything but the callback and the signal. */
export type ThreadAnalysisOptions = Omit<AnalyzeSessionOptions, "onProgress" | "signal">;

export interface AnalysisPart {
  /** Each message's token count (in the first part). */
  tokens?: number[];
  /** The next turns of the analysis and of the replay (the replay's without `window`). */
  turns: AnalyzedTurn[];
  replayTurns: ReplayTurn[];
  /** The last part: the rest of the result. */
  done?: { analysis: Omit<SessionAnalysis, "turns">; replay: Omit<ReplayResult, "turns"> };
}

/** An error as it crosses threads: an AmplifierError keeps its code and details (made cloneable). */
export interface ThreadError {
  code?: string;
  name: string;
  message: string;
  details?: Record<string, unknown>;
}
