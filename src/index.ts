/// <reference types="@amplifier-ts/module-context-simple" preserve="true" />
/// <reference types="@amplifier-ts/module-context-persistent" preserve="true" />
// The references: the built-in context modules register their manager's type (ContextModules), so
// createSession({ session: { context: { module: "context-persistent", … } } }).context is typed.
//
// amplifier-ts: the umbrella package. Its root holds what the README's quickstart and an
// orchestrator loop use — at most 40 runtime names (test/package/surface.test.ts counts them) —
// and every type of the kernel and the contracts (types cost nothing at run time). Everything else
// lives at a named subpath, one concept each (the table in README.md, "Import paths"):
// amplifier-ts/core, /contracts, /window, /strategies, /stores, /memory, /replay, /server, /adapters,
// /testing, /cli; built-in modules also at amplifier-ts/modules/<name>.
export type * from "@amplifier-ts/core";
export type * from "@amplifier-ts/tokens";
export type { HistoryContextManager, LastWindow, MessageExplanation } from "@amplifier-ts/context-manager";
// The built-in context modules' config types (each module owns its schema; contracts no longer generate them).
export type { ContextSimpleConfig } from "@amplifier-ts/module-context-simple";
export type { ContextPersistentConfig } from "@amplifier-ts/module-context-persistent";
export type { ReplayOptions, ReplayResult, ReplayTurn, ReplaySummary, AnalyzeSessionOptions, AnalysisThreadsOptions, AnalyzeSessionResult } from "./replay.js";
export type { MemoryRecorderOptions, StartDelegationOptions } from "@amplifier-ts/module-memory-recorder";

export {
  // a session and the loop around it
  Coordinator,
  HookBus,
  MOUNT_POINTS,
  loadConfig,
  // messages
  forEachContentPart,
  callArguments,
  validateMessage,
  isValidMessage,
  // strategies
  defineStrategy,
  STRATEGIES_CAPABILITY,
  MEMORY_CAPABILITY,
  // errors and their codes
  AmplifierError,
  isAmplifierError,
  createError,
  defineErrorCodes,
  registeredErrorCodes,
  providerErrors,
  storeErrors,
  memoryErrors,
} from "@amplifier-ts/core";
// The kernel's createSession with amplifier-ts's defaults (the tokens capability, the built-in
// module names, the default config, memory from the environment).
export { createSession } from "./session/index.js";
// The standard events of a hand-written orchestrator loop (prompt:submit, tool:pre/post, prompt:complete).
export { runTool, startTurn, type StartTurnOptions, type Turn } from "./turn/index.js";
export { countTokens, getTokenCounter, TOKENS_CAPABILITY } from "@amplifier-ts/tokens";
export { analyzeSession, runReplay } from "./replay-lazy.js";
// Drop-in for the frameworks' own loops (README "Drop-in for your framework"): the window engine
// over an OpenAI / Anthropic / AI SDK / LangChain message array, returned in the same shape.
export { fitWindow, createWindowFitter } from "@amplifier-ts/window";
export type { FitOptions, FitCallOptions, FitResult, FitReport, FitItemDecision, FitItemAction, WindowFormat, WindowFitter } from "@amplifier-ts/window";
