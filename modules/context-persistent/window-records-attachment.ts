/**
 * The session's window records (contracts/window-record.ts) kept as its attachments `windows-0`,
 * `windows-1` … in its own store (session-attachment.ts), WINDOW_SEGMENT_SIZE records each — so a
 * reader (the Inspector) shows what was sent for a stored session, whatever the store.
 *
 * Off the turn's path: `add()` only queues. One write at a time rewrites the newest segment, at
 * most one every `minIntervalMs` (default 500): the records that arrive meanwhile go in the next
 * write (coalesced), so a fast loop writes a few times a second whatever its rate, and an agent whose
 * turns take seconds writes once per turn. Each write costs one segment (at most WINDOW_SEGMENT_SIZE
 * records), never the whole session; `flush()` (at cleanup) writes at once. The newest segment is found on the first write (not at mount): segments are
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
export function windowRecordsAttachment(attachment: (name: string) => SessionAttachment, onProblem: (reason: string) => Promise<void>, minIntervalMs = 500): WindowRecordsAttachment {
  let segment: number | undefined;
  let lastWrite = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
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

  /** One write: the pending records that fit the newest segment (the rest wait for the next write). */
  const writeOnce = async (): Promise<void> => {
    if (pending.length > 0) {
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
      lastWrite = performance.now();
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

  const start = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    writing ??= writeOnce().finally(() => {
      writing = undefined;
      if (pending.length > 0) schedule();
    });
  };
  const schedule = () => {
    if (writing !== undefined || timer !== undefined) return;
    const wait = lastWrite + minIntervalMs - performance.now();
    if (wait <= 0) return start();
    timer = setTimeout(start, wait);
    timer.unref?.();
  };

  return {
    add(record) {
      pending.push(record);
      schedule();
    },
    async flush() {
      for (;;) {
        if (writing === undefined && pending.length > 0) start();
        if (writing === undefined) return;
        await writing;
      }
    },
  };
}
