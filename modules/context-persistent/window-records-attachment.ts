/**
 * The session's window records (contracts/window-record.ts) kept as its attachments `windows-0`,
 * `windows-1` … in its own store (session-attachment.ts), WINDOW_SEGMENT_SIZE records each — so a
 * reader (the Inspector) shows what was sent for a stored session, whatever the store.
 *
 * Off the turn's path: `add()` only queues. One write at a time rewrites the newest segment; the
 * records that arrive while it runs are written by the next one (coalesced), so a fast loop writes
 * less often than it asks. Each write costs one segment (at most WINDOW_SEGMENT_SIZE records), never
 * the whole session. The newest segment is found on the first write (not at mount): segments are
 * probed from 0 until one is missing.
 *
 * Failure policy: a record is diagnostics, not history — a segment that cannot be written or read
 * is reported once (context:storage_degraded) and the session goes on; an unreadable newest segment
 * is left as it is and the records continue in the next one.
 */
import { decodeWindowSegment, encodeWindowSegment, windowSegmentName, WINDOW_SEGMENT_SIZE, type WindowRecord } from "@amplifier-ts/contracts";
import { failureText, type SessionAttachment } from "./session-attachment.js";

export interface WindowRecordsAttachment {
  /** Queues the record; never waits for a write. */
  add(record: WindowRecord): void;
  /** Resolves when every queued record is written (or its failure reported). */
  flush(): Promise<void>;
}

/** `attachment(name)` opens one of the session's attachments (sessionAttachment bound to the session). */
export function windowRecordsAttachment(attachment: (name: string) => SessionAttachment, onProblem: (reason: string) => Promise<void>): WindowRecordsAttachment {
  let segment: number | undefined;
  let records: WindowRecord[] = [];
  let pending: WindowRecord[] = [];
  let writing: Promise<void> | undefined;
  let lastProblem: string | undefined;

  const report = async (reason: string) => {
    if (reason !== lastProblem) await onProblem(reason);
    lastProblem = reason;
  };

  /** The newest segment and its records: the first missing segment's predecessor, or a fresh 0. */
  const findNewest = async (): Promise<void> => {
    let n = 0;
    let newest: { n: number; text: string } | undefined;
    for (;;) {
      const text = await attachment(windowSegmentName(n)).read();
      if (text === undefined) break;
      newest = { n, text };
      n++;
    }
    segment = newest?.n ?? 0;
    if (newest === undefined) return;
    try {
      records = decodeWindowSegment(newest.text, attachment(windowSegmentName(newest.n)).where);
    } catch (error) {
      await report(`${attachment(windowSegmentName(newest.n)).where} cannot be used (${failureText(error)}); window records continue in the next segment`);
      segment = newest.n + 1;
      records = [];
    }
  };

  const writeAll = async (): Promise<void> => {
    while (pending.length > 0) {
      if (segment === undefined) {
        try {
          await findNewest();
        } catch (error) {
          await report(`the window records of this session cannot be read (${failureText(error)}); they are kept in memory only`);
          pending = [];
          return;
        }
      }
      const room = WINDOW_SEGMENT_SIZE - records.length;
      const taken = pending.splice(0, room);
      const next = [...records, ...taken];
      const target = attachment(windowSegmentName(segment!));
      try {
        await target.write(encodeWindowSegment(next));
        records = next;
        lastProblem = undefined;
      } catch (error) {
        await report(`${target.where} cannot be written (${failureText(error)}); window records are kept in memory only`);
      }
      if (records.length >= WINDOW_SEGMENT_SIZE) {
        segment! += 1;
        records = [];
      }
    }
  };

  const schedule = () => {
    writing ??= writeAll().finally(() => {
      writing = undefined;
      if (pending.length > 0) schedule();
    });
  };

  return {
    add(record) {
      pending.push(record);
      schedule();
    },
    async flush() {
      while (writing !== undefined) await writing;
    },
  };
}
