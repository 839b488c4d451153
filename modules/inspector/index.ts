// @amplifier-ts/inspector: the Inspector's data, view models, page and self-contained report.
export type { AnalysisProgress, AnalyzedTurn, DecisionRun, InspectorReport, InspectorSession, InspectorSessionSummary, MessageView, RecordedWindow, SessionAnalysis, SessionAnalysisResult, SimulationOptions, SpendFigures, ToolCallView, WindowDecisionKind } from "./inspector-data.js";
export { inspectorErrors } from "./inspector-errors.js";
export { INSPECTOR_ASSET_PATH, INSPECTOR_CSP, inspectorAssets, inspectorPageHtml, jsonForScript, reportHtml, type InspectorAssets } from "./inspector-page.js";
export { type AnalysisControl } from "./analysis-cache.js";
export { createInspector, historyStoreSource, liveSessions, type Inspector, type InspectorOptions, type InspectorSource, type LiveContext, type LiveSessions, type SessionAnalyzer } from "./inspector-service.js";
export { decisionRuns, type ExplainedMessage } from "./view-model/decision-runs.js";
export { byWords, whyWords } from "./view-model/decision-words.js";
export { readWindowRecords, recordedWindows } from "./window-records.js";
export { FOLD_CHARS, FOLD_LINES, foldText, oneLine, type FoldedText } from "./view-model/fold-text.js";
export { messageView, messageViews } from "./view-model/message-views.js";
export { sessionCharts, type SessionCharts } from "./view-model/session-charts.js";
export { sessionRows, timeLabel, type SessionRow } from "./view-model/session-list.js";
export { timeline, type EventEntry, type MessageEntry, type TimelineEntry } from "./view-model/timeline.js";
export { tokenBar, turnWindow, type TokenSegment, type TokenSegmentKey, type TurnWindowView, type WindowRow } from "./view-model/turn-window.js";
