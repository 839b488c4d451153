import type { InspectorSessionSummary } from "../inspector-data.js";

export interface SessionRow extends InspectorSessionSummary {
  /** `source/sessionId`: unique over every source. */
  key: string;
  /** "2026-11-02 09:00:07 UTC", or "—" when unknown. */
  lastActivityLabel: string;
}

/**
 * The session list: live sessions first, then the most recently active, then by id; `filter`
 * keeps the sessions whose id or source contains every word of it (case-insensitive).
 */
export function sessionRows(sessions: readonly InspectorSessionSummary[], filter = ""): SessionRow[] {
  const words = filter.toLowerCase().split(/\s+/).filter((w) => w !== "");
  return sessions
    .filter((s) => {
      const haystack = `${s.source} ${s.sessionId}`.toLowerCase();
      return words.every((w) => haystack.includes(w));
    })
    .map((s) => ({ ...s, key: `${s.source}/${s.sessionId}`, lastActivityLabel: timeLabel(s.lastActivity) }))
    .sort((a, b) => Number(b.live) - Number(a.live) || (b.lastActivity ?? "").localeCompare(a.lastActivity ?? "") || a.key.localeCompare(b.key));
}

/** An ISO time as "YYYY-MM-DD HH:MM:SS UTC"; "—" for none, the text itself when it is not a time. */
export function timeLabel(iso: string | undefined): string {
  if (iso === undefined || iso === "") return "—";
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}
