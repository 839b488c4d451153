/**
 * Keeps a session's sidecar index (session-index-file.ts) in step with its file, for one
 * JsonlSession. Every step is best effort: the session file is the truth, the index only a way
 * to skip reading it; a failure to write the index deletes it (the next load scans and rebuilds)
 * and never fails the write it follows.
 */
import { stat, type FileHandle } from "node:fs/promises";
import type { Message } from "@amplifier-ts/contracts";
import { factsOf } from "@amplifier-ts/contracts";
import type { LazyRecord } from "./lazy-message.js";
import type { EncodedMessage } from "./message-codec.js";
import { deleteIndex, indexLines, openIndexForAppend, readIndex, tailHash, writeIndex, type IndexSeal } from "./session-index-file.js";

export class SessionIndexKeeper {
  /** The index on disk matches the file as this session last wrote it: appends extend it. */
  #inStep = false;
  #appender: FileHandle | undefined;
  /** A read-only load's clean scan: the index the first append writes (then the appends extend it). */
  #deferred: { records: LazyRecord[]; lastRecord: Uint8Array | undefined } | undefined;
  /** A read-only load found an index it could not trust and left it: the first append deletes it. */
  #staleLeft = false;
  /** Why the last load did not use the index ("missing", "stale: …"); undefined when it did. */
  lastVerdict: string | undefined;

  constructor(readonly file: string) {}

  /**
   * The trusted records of the index for the file as it is, or undefined (then it is deleted —
   * unless `readOnly`: a load that only reads leaves the files beside the session as they are,
   * and the first write repairs the index).
   */
  async load(handle: FileHandle, size: number, mtimeMs: number, readOnly = false): Promise<LazyRecord[] | undefined> {
    const verdict = await readIndex(this.file, handle, size, mtimeMs).catch((error: unknown) => ({ ok: false as const, reason: `unreadable (${(error as Error).message})` }));
    if (verdict.ok) {
      this.#inStep = true;
      this.lastVerdict = undefined;
      return verdict.records;
    }
    this.lastVerdict = verdict.reason;
    if (readOnly) this.#staleLeft = true;
    else await this.#drop();
    return undefined;
  }

  /**
   * After a full scan found the file clean, in a load that only reads: nothing is written now; the
   * index of these records is written by the first append (`beforeAppend`), if one comes.
   */
  defer(messages: readonly Message[], starts: readonly number[], ends: readonly number[], lastRecord: Uint8Array | undefined): void {
    this.#deferred = { records: messages.map((message, i) => ({ start: starts[i]!, end: ends[i]!, facts: factsOf(message) })), lastRecord };
  }

  /** Before the first append of a session loaded read-only: writes the deferred index (or drops a stale one the load left). */
  async beforeAppend(): Promise<void> {
    const deferred = this.#deferred;
    if (deferred !== undefined) {
      this.#deferred = undefined;
      this.#staleLeft = false;
      await this.#writeWhole(deferred.records, deferred.lastRecord);
    } else if (this.#staleLeft) {
      this.#staleLeft = false;
      await this.#drop();
    }
  }

  /** After a full scan found the file clean: writes the index of its records. */
  async rebuild(messages: readonly Message[], starts: readonly number[], ends: readonly number[], lastRecord: Uint8Array | undefined): Promise<void> {
    const records: LazyRecord[] = messages.map((message, i) => ({ start: starts[i]!, end: ends[i]!, facts: factsOf(message) }));
    await this.#writeWhole(records, lastRecord);
  }

  /** After a rewrite with `records` laid out at `starts`/`ends`. */
  async rewritten(records: readonly EncodedMessage[], starts: readonly number[], ends: readonly number[]): Promise<void> {
    const lazy = records.map((record, i) => ({ start: starts[i]!, end: ends[i]!, facts: record.facts }));
    const last = records[records.length - 1];
    await this.#writeWhole(lazy, last === undefined ? undefined : Buffer.from(last.json));
  }

  /** After an append of `records` (starting at byte `start`, one `\n` after each) reached the file. */
  async appended(records: readonly EncodedMessage[], start: number, handle: FileHandle): Promise<void> {
    if (!this.#inStep || records.length === 0) return;
    try {
      const lazy: LazyRecord[] = [];
      let position = start;
      for (const record of records) {
        const length = Buffer.byteLength(record.json);
        lazy.push({ start: position, end: position + length, facts: record.facts });
        position += length + 1;
      }
      const stat = await handle.stat();
      const seal: IndexSeal = { size: stat.size, mtimeMs: stat.mtimeMs, tail: tailHash(Buffer.from(records[records.length - 1]!.json)) };
      this.#appender ??= await openIndexForAppend(this.file);
      const text = Buffer.from(indexLines(lazy, seal));
      let written = 0;
      while (written < text.length) written += (await this.#appender.write(text, written, text.length - written)).bytesWritten;
    } catch {
      await this.#drop();
    }
  }

  /** Before the file is rewritten or its records removed: the index no longer describes it. */
  async invalidate(): Promise<void> {
    this.#deferred = undefined;
    this.#staleLeft = false;
    await this.#drop();
  }

  async close(): Promise<void> {
    await this.#appender?.close().catch(() => undefined);
    this.#appender = undefined;
  }

  async #writeWhole(records: readonly LazyRecord[], lastRecord: Uint8Array | undefined): Promise<void> {
    await this.#drop();
    try {
      const now = await stat(this.file);
      await writeIndex(this.file, records, { size: now.size, mtimeMs: now.mtimeMs, tail: lastRecord === undefined ? "" : tailHash(lastRecord) });
      this.#inStep = true;
    } catch {
      await this.#drop();
    }
  }

  async #drop(): Promise<void> {
    this.#inStep = false;
    await this.close();
    await deleteIndex(this.file);
  }
}
