/**
 * The sidecar index of a JSONL session file: `<session file>.index`, beside it. It lets a resume
 * skip reading and parsing the history: per record its byte range and its facts (contracts
 * MessageFacts: role, critical, note, calls, result ids, turn content, id, run id), so the window
 * can plan its cut on the index and parse only the messages it shows (lazy-message.ts).
 *
 * Format (text, one JSON value per line, each entry followed by a comma, so the entries are the
 * elements of one JSON array — a single JSON.parse reads them all; JSON escapes every `\n` inside
 * a value):
 *
 *     {"format":"amplifier-ts/session-index","version":2}
 *     [start,end,"role",flags,id|null,runId|null,calls|0,resultIds|0],
 *     [start,end,"role",flags,id|null,runId|null,calls|0,resultIds|0,{"size":S,"mtimeMs":M,"tail":"sha1"}],
 *
 * The six elements after the byte range are the facts' compact form (message-facts-codec.ts:
 * flags 1 critical, 2 note, 4 turn content; calls `[[id, name, 0 openai | 1 anthropic], …]`).
 * The last entry written by each write carries a SEAL: the session
 * file's size and mtime right after that write, and the SHA-1 of its last record.
 *
 * | when                         | the index                                                     |
 * |------------------------------|---------------------------------------------------------------|
 * | append (after the data write) | one line per record appended, the last sealed; no fsync: a lost tail is a stale index |
 * | replace (setMessages, clear) | deleted before the rewrite, written whole (atomically) after it |
 * | clearRun, recovery needed    | deleted; the next load scans the file and writes it again     |
 * | load                         | TRUSTED only if it parses whole, its entries are well formed and ascending, and its last seal matches the file: size, mtime and the hash of the last record read back from the file; else the file is scanned as always and the index rewritten |
 *
 * A crash between the data write and the index write leaves an index whose seal names a smaller
 * file: detected, rebuilt. An index is never trusted blindly; what remains undetected is an edit
 * by another program that keeps the file's size, mtime and last record — a record that then no
 * longer parses is reported as STORAGE_UNAVAILABLE when the window reads it.
 */
import { createHash } from "node:crypto";
import { open, readFile, unlink, type FileHandle } from "node:fs/promises";
import type { Message } from "@amplifier-ts/contracts";
import { factsOf } from "@amplifier-ts/contracts";
import { writeFileAtomic } from "./atomic-file.js";
import type { LazyRecord } from "./lazy-message.js";
import { decodeFacts, encodeFacts, FACTS_LENGTH } from "./message-facts-codec.js";

const HEADER = `${JSON.stringify({ format: "amplifier-ts/session-index", version: 2 })}\n`;

/** The session file's state right after a write, as the last entry's seal records it. */
export interface IndexSeal {
  size: number;
  mtimeMs: number;
  /** SHA-1 (hex) of the last record's bytes (without its `\n`). */
  tail: string;
}

export type IndexVerdict = { ok: true; records: LazyRecord[] } | { ok: false; reason: string };

export function indexPathOf(sessionFile: string): string {
  return `${sessionFile}.index`;
}

export function tailHash(record: Uint8Array): string {
  return createHash("sha1").update(record).digest("hex");
}

/** The lines of `records` (starting at `start`, `end` per record), the last one sealed with `seal`. */
export function indexLines(records: readonly LazyRecord[], seal: IndexSeal): string {
  let text = "";
  for (let i = 0; i < records.length; i++) {
    text += `${JSON.stringify(entryOf(records[i]!, i === records.length - 1 ? seal : undefined))},\n`;
  }
  return text;
}

/** Facts of freshly written messages, with their byte ranges. */
export function recordsOf(messages: readonly Message[], starts: readonly number[], ends: readonly number[]): LazyRecord[] {
  return messages.map((message, i) => ({ start: starts[i]!, end: ends[i]!, facts: factsOf(message) }));
}

/** Writes the whole index (atomically). */
export async function writeIndex(sessionFile: string, records: readonly LazyRecord[], seal: IndexSeal): Promise<void> {
  await writeFileAtomic(indexPathOf(sessionFile), Buffer.from(HEADER + indexLines(records, seal)));
}

export async function deleteIndex(sessionFile: string): Promise<void> {
  await unlink(indexPathOf(sessionFile)).catch(() => undefined);
}

/** The handle appends go through (created if missing: only after a whole index was written). */
export async function openIndexForAppend(sessionFile: string): Promise<FileHandle> {
  return open(indexPathOf(sessionFile), "a");
}

/**
 * The index of `sessionFile` if it can be trusted for the file as it is now (`handle`: the session
 * file, open; `size`, `mtimeMs`: its stat), else why not.
 */
export async function readIndex(sessionFile: string, handle: FileHandle, size: number, mtimeMs: number): Promise<IndexVerdict> {
  let text: string;
  try {
    text = await readFile(indexPathOf(sessionFile), "utf8");
  } catch {
    return { ok: false, reason: "missing" };
  }
  if (!text.startsWith(HEADER)) return { ok: false, reason: "not an index of this version" };
  const body = text.slice(HEADER.length);
  if (body.length === 0) return size === 0 ? { ok: true, records: [] } : { ok: false, reason: "empty index of a non-empty file" };
  if (!body.endsWith(",\n")) return { ok: false, reason: "torn last line" };
  let rows: unknown[];
  try {
    rows = JSON.parse(`[${body.slice(0, -2)}]`) as unknown[];
  } catch {
    return { ok: false, reason: "corrupt (not JSON)" };
  }
  const records: LazyRecord[] = new Array(rows.length);
  let previousEnd = -1;
  for (let i = 0; i < rows.length; i++) {
    const record = recordOf(rows[i]);
    if (record === undefined || record.start <= previousEnd || record.end < record.start) return { ok: false, reason: `corrupt entry ${i}` };
    records[i] = record;
    previousEnd = record.end;
  }
  const seal = sealOf((rows[rows.length - 1] as unknown[])[8]);
  if (seal === undefined) return { ok: false, reason: "the last write was not sealed (interrupted)" };
  if (seal.size !== size || previousEnd + 1 !== size) return { ok: false, reason: `stale: sealed at ${seal.size} bytes, the file has ${size}` };
  if (seal.mtimeMs !== mtimeMs) return { ok: false, reason: "stale: the file was modified after the index was sealed" };
  const last = records[records.length - 1]!;
  const tail = Buffer.allocUnsafe(last.end - last.start + 1);
  const { bytesRead } = await handle.read(tail, 0, tail.length, last.start);
  if (bytesRead !== tail.length || tail[tail.length - 1] !== 0x0a || tailHash(tail.subarray(0, -1)) !== seal.tail) {
    return { ok: false, reason: "stale: the last record differs from the one the index was sealed with" };
  }
  return { ok: true, records };
}

function entryOf(record: LazyRecord, seal: IndexSeal | undefined): unknown[] {
  const entry: unknown[] = [record.start, record.end, ...encodeFacts(record.facts)];
  if (seal) entry.push(seal);
  return entry;
}

function recordOf(row: unknown): LazyRecord | undefined {
  if (!Array.isArray(row) || row.length < 2 + FACTS_LENGTH) return undefined;
  const [start, end] = row as unknown[];
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return undefined;
  const facts = decodeFacts(row, 2);
  return facts === undefined ? undefined : { start: start as number, end: end as number, facts };
}

function sealOf(value: unknown): IndexSeal | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { size, mtimeMs, tail } = value as Partial<IndexSeal>;
  return typeof size === "number" && typeof mtimeMs === "number" && typeof tail === "string" ? { size, mtimeMs, tail } : undefined;
}
