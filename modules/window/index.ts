export { WindowAssembler, DEFAULT_COMPACT_THRESHOLD, DEFAULT_COMPACT_TARGET, type AssembleOptions, type AssembledWindow } from "./window-assembler.js";
export { resolveBudget, explainBudget, DEFAULT_SAFETY_MARGIN, DEFAULT_MAX_TOKENS, type BudgetInput, type BudgetSource, type ResolvedBudget } from "./budget.js";
export type { WindowCounter } from "./token-ledger.js";
export type { CutReason } from "./cut-policy.js";
export type { LadderLevel } from "./ladder.js";
export type { WindowReport, WindowRepairs, WindowDecision, DecisionAction, DecisionReason } from "./window-report.js";
export { thinkingPolicies, type ThinkingPolicy } from "./window-builder.js";
export {
  INTERRUPTED_RESULT_TEXT,
  OMITTED_HISTORY_TEXT,
  windowMarkOf,
  type WindowMark,
  type SpillMark,
  type TruncationMark,
  type SyntheticKind,
} from "./window-marks.js";
export { truncateText, truncationMarker, TRUNCATION_MARKER_PATTERN, type TruncatedText } from "./truncate-text.js";
export { HistoryIndex, lowerBound, type Unit } from "./history-index.js";
export { freezeDeep, freezeNested, frozenBody, shallowCopy } from "./message-copy.js";
export { callsOf, isCritical, isInstruction, isResultCarrier, isToolResultBlock } from "./message-shape.js";
export { joinText, textLength } from "./truncate-message.js";
export { freezeCreated, withMark } from "./window-marks.js";
// The toolkit for plugin authors (README.md): one-shot windows, the unit vocabulary, repairs and truncation.
export { assembleWindow } from "./assemble-window.js";
export type { Member, UnitKind } from "./history-index.js";
export { hasTurnContent, idOf, isTurnNote, resultIdsOf, type CallRef, type ToolStyle } from "./message-shape.js";
export { interruptedResults, omittedHistoryMessage, stripResultBlocks, type StrippedMessage } from "./repair.js";
export { promptPart, resultParts, truncateParts, type PartCap, type TextPart } from "./truncate-message.js";
// Drop-in for other frameworks' message arrays (README.md, "fitWindow").
export { fitWindow } from "./fit-window.js";
export { createWindowFitter, type WindowFitter, type FitResult, type FitCallOptions } from "./window-fitter.js";
export type { FitOptions } from "./fit-options.js";
export type { FitReport, FitItemDecision, FitItemAction } from "./fit-report.js";
export { WINDOW_FORMATS, type WindowFormat } from "./fit-formats.js";
export { fitErrors } from "./fit-errors.js";
