/**
 * What was sent, per turn: the context manager's window records (contracts/window-record.ts) of a
 * session, read from its source, lined up with the session's assistant messages.
 *
 * | a turn (the assistant message at index m) gets … | when |
 * |---|---|
 * | the last record built over exactly m stored messages | the common case: the request came right before the answer |
 * | else the last record over fewer, but after the previous turn's answer | a message was stored between the request and the answer |
 * | nothing (the page shows a simulation for it, labelled) | no record, or its `lastId` is not the session's message there (the history was replaced since) |
 */
import { decodeWindowSegment, windowSegmentName, WINDOW_SEGMENT_SIZE, type HistoryStore, type SessionAttachments, type WindowRecord } from "@amplifier-ts/contracts";
import type { DecisionRun, RecordedWindow } from "./inspector-data.js";
import { whyWords } from "./view-model/decision-words.js";

/**
 * Every record of the session's attachments windows-0, windows-1 … (read only; WINDOW_RECORD_INVALID
 * for a segment that is not one). `full`, when given, holds the segments already read whole
 * (WINDOW_SEGMENT_SIZE records: their writer never rewrites them): they are not read again, so a
 * page following a long session reads its newest segment only.
 */
export async function readWindowRecords(store: HistoryStore & SessionAttachments, sessionId: string, full: WindowRecord[][] = []): Promise<WindowRecord[]> {
  const records: WindowRecord[] = full.flat();
  for (let n = full.length; ; n++) {
    const text = await store.readAttachment(sessionId, windowSegmentName(n));
    if (text === undefined) return records;
    const segment = decodeWindowSegment(text, `window records "${windowSegmentName(n)}" of session "${sessionId}"`);
    if (segment.length >= WINDOW_SEGMENT_SIZE && n === full.length) full.push(segment);
    records.push(...segment);
  }
}

/** The session's turns that have a record, as the page shows them. */
export function recordedWindows(messages: ReadonlyArray<{ role: string; metadata?: { id?: unknown } | undefined }>, records: readonly WindowRecord[]): RecordedWindow[] {
  const lastAt = new Map<number, WindowRecord>();
  for (const r of records) lastAt.set(r.history, r);
  const out: RecordedWindow[] = [];
  let turn = 0;
  let previous = -1;
  messages.forEach((message, m) => {
    if (message.role !== "assistant") return;
    turn++;
    for (let h = m; h > previous; h--) {
      const record = lastAt.get(h);
      if (record === undefined) continue;
      if (record.lastId === undefined || h === 0 || messages[h - 1]?.metadata?.id === record.lastId) out.push(recordedWindow(record, turn, m));
      break;
    }
    previous = m;
  });
  return out;
}

function recordedWindow(r: WindowRecord, turn: number, messageIndex: number): RecordedWindow {
  const decisions: DecisionRun[] = r.runs.map(([from, to, decision, by, why]) => ({
    from,
    to,
    // A strategy that brought a message in on purpose (recall) kept it: "recalled", as in the simulation.
    decision: decision === "kept" && by !== "window" && by !== "pipeline" ? "recalled" : decision,
    strategy: by,
    reason: whyWords(why),
    code: why,
  }));
  return {
    turn,
    messageIndex,
    at: r.at,
    model: r.model,
    budget: r.budget,
    historyMessages: r.history,
    historyTokens: r.historyTokens,
    windowMessages: r.windowMessages,
    windowTokens: r.windowTokens,
    instructionTokens: r.instructionTokens,
    historyKeptTokens: Math.max(0, r.windowTokens - r.instructionTokens - r.toolTokens),
    toolTokens: r.toolTokens,
    tools: r.tools.map((t) => ({ name: t.name, tokens: t.tokens })),
    strategies: r.strategies,
    decisions,
  };
}
