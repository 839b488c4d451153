/// <reference types="@amplifier-ts/module-context-simple" preserve="true" />
/// <reference types="@amplifier-ts/module-context-persistent" preserve="true" />
// The references: the built-in context modules register their manager's type (ContextModules), so
// createSession({ session: { context: { module: "context-persistent", … } } }).context is typed.
// amplifier-ts: the umbrella package. The kernel and every contract (@amplifier-ts/core), the
// replay and the CLI. Built-in modules are packages of their own, reached by name through the
// loader ("context-persistent") or imported from "amplifier-ts/modules/<name>".
export * from "@amplifier-ts/core";
// The handle of the built-in context managers (search, explainLastWindow, runs, setTools); the
// references at the top bring the modules' ContextModules entries into a consumer's program.
export type { HistoryContextManager, LastWindow, MessageExplanation } from "@amplifier-ts/context-manager";
export { runReplay, type ReplayOptions, type ReplayResult, type ReplayTurn, type ReplaySummary } from "./replay/run-replay.js";
// The Inspector's analysis (a session replayed with explain on every turn) and its one-file report.
export { analyzeSession, type AnalyzeSessionOptions } from "./replay/session-analysis.js";
// The same analysis in a worker thread, for a server: its event loop never waits for a replay.
export { AnalysisThreads, analyzeSessionInWorker, type AnalysisThreadsOptions, type AnalyzeSessionResult } from "./replay/session-analysis-threads.js";
export { writeHtmlReport } from "./replay/html-report.js";
export { runCli } from "./cli/run-cli.js";
// Agent memory (contracts/MEMORY.md): the built-in memories, the recorder's sub-agent helpers.
export { LocalMemory } from "@amplifier-ts/module-memory-local";
export { NullMemory } from "@amplifier-ts/module-memory-null";
export { PostgresMemory } from "@amplifier-ts/module-memory-postgres";
export { RedisMemory } from "@amplifier-ts/module-memory-redis";
export { finishDelegation, recordIntoMemory, startDelegation, type MemoryRecorderOptions, type StartDelegationOptions } from "@amplifier-ts/module-memory-recorder";
