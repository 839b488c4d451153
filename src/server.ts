// amplifier-ts/server: the HTTP endpoints (GET /memory/events, /memory/sessions, /openapi.json)
// and the Inspector at / with its sources (history stores, live in-process sessions).
export * from "@amplifier-ts/server";
export { createInspector, historyStoreSource, liveSessions, reportHtml, type Inspector, type InspectorOptions, type InspectorReport, type InspectorSession, type InspectorSessionSummary, type InspectorSource, type LiveContext, type LiveSessions, type SessionAnalysis, type SessionAnalyzer } from "@amplifier-ts/inspector";
