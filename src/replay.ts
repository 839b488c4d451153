// amplifier-ts/replay: a recorded session fed through a context manager turn by turn (runReplay,
// the engine of `amplifier-ts replay`), the Inspector's analysis of a session (analyzeSession, and
// analyzeSessionInWorker / AnalysisThreads to run it off a server's event loop) and its one-file
// HTML report (writeHtmlReport).
export { runReplay, type ReplayOptions, type ReplayResult, type ReplayTurn, type ReplaySummary } from "./replay/run-replay.js";
export type { ReplaySpend } from "./replay/replay-spend.js";
export { analyzeSession, type AnalyzeSessionOptions } from "./replay/session-analysis.js";
export { AnalysisThreads, analyzeSessionInWorker, type AnalysisThreadsOptions, type AnalyzeSessionResult } from "./replay/session-analysis-threads.js";
export { writeHtmlReport } from "./replay/html-report.js";
