// @amplifier-ts/context-manager: the HistoryContextManager the built-in context modules share, and
// its options. A third-party context module can build on it, or on @amplifier-ts/window alone.
export { contextOptionsSchema, contextOptionsShape, type ContextOptionsInput } from "./context-options.js";
export { HistoryContextManager, parseModuleConfig, type HistoryContextManagerInit } from "./history-context-manager.js";
export type { LastWindow, MessageExplanation } from "./window-explanation.js";
export { strategyDefinitionsOf } from "./strategy-capability.js";
export { TokenCalibration, CALIBRATION_RULES, type CalibrationRecord, type CalibrationOutcome, type UsageObservation } from "./token-calibration.js";
export type { UsageRecord } from "./usage-ledger.js";
export { copyWithExcerpt, spilledText, spillErrors, HANDLE_PATTERN, type SpillRecord, type SpillStore } from "./spilled-history.js";
export { excerptOf, queryTerms, type ExcerptRequest } from "./spill-excerpt.js";
export { spillOptionsSchema, type SpillOptions } from "./context-options.js";
export { importCarriedSpills, type CarriedSpill, type CarriedSpills } from "./carried-spills.js";
export { offerSpilledResults } from "./spilled-results-capability.js";
