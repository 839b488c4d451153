import type { FileHandle } from "node:fs/promises";
import type { Message } from "@amplifier-ts/contracts";
import type { RecoveryProblem, RecoveryReport } from "@amplifier-ts/contracts";
import { decodeRecord } from "./message-codec.js";

/** Where each record of a session file lives: record i is bytes [starts[i], ends[i]) (no `\n`). */
export interface RecordIndex {
  starts: number[];
  ends: number[];
  runIds: (string | undefined)[];
}

export interface ScanResult extends RecordIndex {
  /** Every record, parsed once; fresh objects nobody else holds. */
  messages: Message[];
  problems: RecoveryProblem[];
  /** Bytes from the start that form valid JSONL; a torn tail lies beyond it and is cut before the next write. */
  validEnd: number;
  /** The last record is whole but has no `\n` (kept; the `\n` is written before the next record). */
  missingNewline: boolean;
  /** The file's size when it was read. */
  size: number;
}

const CHUNK = 4 * 1024 * 1024;
const NEWLINE = 0x0a;
const PREVIEW_BYTES = 120;

/**
 * Reads a session file once, front to back, in 4 MiB chunks: lines are found with Buffer.indexOf
 * (native), each record is decoded and parsed once, and nothing is kept of the file but the
 * parsed messages and their byte positions. Damage is classified, never fatal:
 *
 * | line | verdict |
 * |---|---|
 * | blank (only whitespace) | ignored, not reported (editors and `echo >>` leave them) |
 * | whole, ends with `\n`, parses to a message | a record |
 * | ends with `\n`, does not parse | corrupt-record: skipped and reported; stays in the file until the next rewrite |
 * | last, no `\n`, does not parse | torn-tail: a crash mid-write; skipped, reported, cut before the next write |
 * | last, no `\n`, parses | missing-newline: the record is kept (a JSON object cannot be cut and still parse) |
 */
export async function scanJsonl(handle: FileHandle): Promise<ScanResult> {
  const result: ScanResult = { starts: [], ends: [], runIds: [], messages: [], problems: [], validEnd: 0, missingNewline: false, size: 0 };
  let position = 0;
  let pending: Buffer[] = [];
  let pendingStart = 0;
  let line = 0;
  // The writer holds the session's lock, so the size read here is the size to the end.
  const { size } = await handle.stat();
  while (position < size) {
    const length = Math.min(CHUNK, size - position);
    const chunk = Buffer.allocUnsafe(length);
    const { bytesRead } = await handle.read(chunk, 0, length, position);
    if (bytesRead === 0) break;
    let from = 0;
    for (let nl = chunk.indexOf(NEWLINE, 0); nl !== -1 && nl < bytesRead; nl = chunk.indexOf(NEWLINE, from)) {
      const start = pending.length > 0 ? pendingStart : position + from;
      const bytes = pending.length > 0 ? Buffer.concat([...pending, chunk.subarray(from, nl)]) : chunk.subarray(from, nl);
      pending = [];
      take(result, bytes, start, true, ++line);
      from = nl + 1;
    }
    if (from < bytesRead) {
      if (pending.length === 0) pendingStart = position + from;
      pending.push(chunk.subarray(from, bytesRead));
    }
    position += bytesRead;
  }
  if (pending.length > 0) take(result, Buffer.concat(pending), pendingStart, false, ++line);
  result.size = position;
  return result;
}

/** What a load reports: missing newlines are repairs, not skipped records. */
export function recoveryReport(sessionId: string, problems: RecoveryProblem[]): RecoveryReport {
  const skipped = problems.filter((p) => p.kind !== "missing-newline");
  return { sessionId, skippedLines: skipped.length, skippedBytes: skipped.reduce((sum, p) => sum + p.bytes, 0), problems };
}

function take(result: ScanResult, bytes: Buffer, start: number, terminated: boolean, line: number): void {
  const end = start + bytes.length;
  if (isBlank(bytes)) {
    // A blank unterminated tail is not kept: validEnd stays before it and it is cut before the next write.
    if (terminated) result.validEnd = end + 1;
    return;
  }
  const decoded = decodeRecord(bytes.toString("utf8"));
  if (decoded.ok) {
    result.starts.push(start);
    result.ends.push(end);
    result.runIds.push(decoded.runId);
    result.messages.push(decoded.message);
    result.validEnd = terminated ? end + 1 : end;
    if (!terminated) {
      result.missingNewline = true;
      result.problems.push(problem("missing-newline", line, start, bytes, "the last record has no line terminator; kept"));
    }
    return;
  }
  if (terminated) {
    result.validEnd = end + 1;
    result.problems.push(problem("corrupt-record", line, start, bytes, `${decoded.reason}; skipped`));
  } else {
    result.problems.push(problem("torn-tail", line, start, bytes, `the last record was cut short (${decoded.reason}); skipped`));
  }
}

function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
}

function problem(kind: RecoveryProblem["kind"], line: number, offset: number, bytes: Buffer, reason: string): RecoveryProblem {
  const head = bytes.subarray(0, PREVIEW_BYTES).toString("utf8");
  return { kind, line, offset, bytes: bytes.length, reason, preview: bytes.length > PREVIEW_BYTES ? `${head}…` : head };
}
