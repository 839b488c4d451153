/**
 * A session's window records as the Inspector's sources give them (window-records.ts reads and
 * lines them up): a history store with attachments reads its `windows-<n>` attachments read-only;
 * a live session asks its context manager. A record that cannot be read is no error of the page:
 * `recordError` says why, and the page shows the simulation, labelled as one.
 */
import { hasSessionAttachments, type HistoryStore, type Message, type WindowRecord } from "@amplifier-ts/contracts";
import type { InspectorSession } from "./inspector-data.js";
import { readWindowRecords, recordedWindows } from "./window-records.js";

export type WindowRecordSource = (sessionId: string) => Promise<readonly WindowRecord[] | undefined>;

/** Sessions whose full record segments are kept in memory (each at most a few MB of records). */
const CACHED_SESSIONS = 32;

/** `{ windows }` for a store that keeps attachments, else nothing. Full segments are read once per session (readWindowRecords). */
export function storeWindowRecords(store: HistoryStore): { windows?: WindowRecordSource } {
  if (!hasSessionAttachments(store)) return {};
  const full = new Map<string, WindowRecord[][]>();
  return {
    windows: async (sessionId) => {
      let segments = full.get(sessionId);
      full.delete(sessionId);
      segments ??= [];
      try {
        return await readWindowRecords(store, sessionId, segments);
      } finally {
        // Most recently read last: the oldest is forgotten first.
        full.set(sessionId, segments);
        if (full.size > CACHED_SESSIONS) full.delete(full.keys().next().value!);
      }
    },
  };
}

/** The session view's `recorded` (or `recordError`). */
export async function sessionRecords(source: { windows?: WindowRecordSource } | undefined, sessionId: string, messages: readonly Message[]): Promise<Pick<InspectorSession, "recorded" | "recordError">> {
  if (source?.windows === undefined) return {};
  try {
    const records = await source.windows(sessionId);
    if (records === undefined || records.length === 0) return {};
    return { recorded: recordedWindows(messages, records) };
  } catch (error) {
    return { recordError: error instanceof Error ? error.message : String(error) };
  }
}
