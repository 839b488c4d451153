/**
 * The RecordSource of a JSONL session's lazy messages (lazy-message.ts): the session file, read
 * synchronously through a descriptor opened at load.
 *
 * Appends never move an earlier record and a rewrite replaces the file by rename, so the open
 * descriptor keeps the bytes these messages were indexed against for as long as any of them is
 * unparsed; it is closed when the last one is parsed, or when no lazy message of the batch is
 * reachable any more (FinalizationRegistry). A record's `start`/`end` are its byte range.
 */
import { closeSync, openSync, readSync } from "node:fs";
import type { Message } from "@amplifier-ts/contracts";
import { lazyMessagesFrom, type LazyRecord, type RecordSource } from "./lazy-message.js";
import { storageUnavailable } from "./storage-errors.js";

/** Bytes read at once when a message is parsed: its neighbours are usually parsed next. */
const BLOCK_BYTES = 256 * 1024;

/**
 * Lazy messages for `records` of `file`, read through a descriptor opened here (sync: a resume
 * holds the session's lock, and this is one open). Throws STORAGE_UNAVAILABLE when the file
 * cannot be opened.
 */
export function lazyMessages(file: string, module: string, records: readonly LazyRecord[]): Message[] {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (error) {
    throw storageUnavailable(error, module, file, `open ${file}`);
  }
  const source = new FileRecordSource(file, module, fd, records.length);
  if (records.length > 0) sources.register(source, fd, source);
  return lazyMessagesFrom(source, records);
}

/** Every lazy message holds its source; when none is reachable, its descriptor is closed. */
const sources = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Closed already.
  }
});

class FileRecordSource implements RecordSource {
  readonly changedHint = "another program modified the session while its index was kept; delete the .index file beside it to rebuild the index";
  #fd: number | undefined;
  #unparsed: number;
  /** The last block read ([start, start + length) of the file): a pass over many messages reads blocks, not records. */
  #block: Buffer | undefined;
  #blockStart = 0;
  #lastStart = -1;

  constructor(
    readonly where: string,
    readonly module: string,
    fd: number,
    count: number,
  ) {
    this.#fd = fd;
    this.#unparsed = count;
    if (count === 0) this.close();
  }

  text({ start, end }: LazyRecord): string {
    const block = this.#block;
    if (block !== undefined && start >= this.#blockStart && end <= this.#blockStart + block.length) {
      this.#lastStart = start;
      return block.toString("utf8", start - this.#blockStart, end - this.#blockStart);
    }
    // Reading forwards (getMessages, search): the block starts at the record; backwards (a
    // window counting from the end): it ends with it. One record alone when it is larger.
    const forwards = start > this.#lastStart;
    this.#lastStart = start;
    const length = Math.max(end - start, BLOCK_BYTES);
    const from = forwards ? start : Math.max(0, end - length);
    const data = this.#read(from, length);
    if (data.length < end - from) throw storageUnavailable(new Error("the session file is shorter than its index (changed outside the store)"), this.module, this.where, `read ${this.where}`);
    this.#block = data;
    this.#blockStart = from;
    return data.toString("utf8", start - from, end - from);
  }

  /** Up to `length` bytes from `from` (fewer at the end of the file). */
  #read(from: number, length: number): Buffer {
    const fd = this.#fd;
    if (fd === undefined) throw storageUnavailable(new Error("the session file was closed"), this.module, this.where, `read ${this.where}`);
    const data = Buffer.allocUnsafe(length);
    let done = 0;
    try {
      while (done < length) {
        const read = readSync(fd, data, done, length - done, from + done);
        if (read === 0) break;
        done += read;
      }
    } catch (error) {
      throw storageUnavailable(error, this.module, this.where, `read ${this.where}`);
    }
    return data.subarray(0, done);
  }

  /** One more message parsed; the last one closes the file. */
  parsed(): void {
    if (--this.#unparsed === 0) this.close();
  }

  close(): void {
    this.#block = undefined;
    if (this.#fd === undefined) return;
    const fd = this.#fd;
    this.#fd = undefined;
    sources.unregister(this);
    try {
      closeSync(fd);
    } catch {
      // Already closed by the process teardown: nothing to release.
    }
  }
}
