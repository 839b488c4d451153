import { open, type FileHandle } from "node:fs/promises";
import type { Message, OpenedSession, RecoveryProblem, SessionSummary } from "@amplifier-ts/contracts";
import { decodeRecord, parseStored } from "./message-codec.js";
import { recoveryReport } from "./jsonl-scan.js";
import { errnoOf, storageUnavailable } from "./storage-errors.js";
import type { Page } from "./store-arguments.js";
import { timeSlice, type TimeSlice } from "./time-slice.js";

/** Bytes before the consumed end remembered to recognise the same file after a change (inode numbers are reused). */
const FINGERPRINT_BYTES = 256;
const NEWLINE = 0x0a;
/** Bytes read at once when following a file. */
const CHUNK_BYTES = 4 * 1024 * 1024;
/** The longest stretch of parsing between two turns of the event loop (the reader runs in servers' threads). */
const SLICE_MS = 4;

/**
 * One session file followed by a reader (JsonlStoreOptions.readOnly): the Inspector, `sessions
 * show`, `replay`, `serve --sessions`. It takes no lock and writes nothing — no index, no temp-file
 * cleanup, no folder — so the agent that writes the session is never in its way, and it follows
 * the writer instead of holding a copy:
 *
 * | on each call, the file … | the reader |
 * |---|---|
 * | has the same inode, size and mtime | reads nothing |
 * | grew (same inode, same bytes before the consumed end) | reads only the new bytes; a last line without `\n` is not there yet (the writer is mid-append) and is read again next time |
 * | was replaced (rename of a rewrite: other inode, shorter, or other bytes before the end) | reads it again from the start |
 * | is gone | holds no session (count 0, no messages) |
 *
 * It keeps only the byte range of each complete record; a read parses the records it returns
 * (fresh objects the caller owns), a few milliseconds at a time (SLICE_MS). A corrupt complete line is skipped and reported by `open()`.
 */
export class JsonlSessionReader {
  #starts: number[] = [];
  #ends: number[] = [];
  #problems: RecoveryProblem[] = [];
  #lines = 0;
  /** Bytes consumed: the end of the last complete line. */
  #consumed = 0;
  #fingerprint = Buffer.alloc(0);
  #identity = "";
  #mtime: Date | undefined;
  #exists = false;
  /** The file's size at the last look (a torn tail lies between #consumed and it). */
  #seenSize = -1;
  /** Looks at the file run one after another: each starts where the last one stopped. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly sessionId: string,
    readonly file: string,
    private readonly module: string,
    /** Parsing between two turns of the event loop, at most (tests set 0: a turn every few records). */
    private readonly sliceMs: number = SLICE_MS,
  ) {}

  /** Turns given to the event loop while indexing or parsing, since the reader was made (for tests). */
  yields = 0;

  async open(): Promise<OpenedSession> {
    const messages = await this.read((length) => ({ start: 0, end: length }));
    const problems = this.#problems;
    return problems.length === 0 ? { messages } : { messages, recovered: recoveryReport(this.sessionId, problems) };
  }

  async read(page: (length: number) => Page): Promise<Message[]> {
    // Ranges are read through the handle the refresh indexed: a rewrite meanwhile cannot mix files.
    return this.#withFile(async (handle) => {
      const { start, end } = page(this.#starts.length);
      if (end <= start || handle === undefined) return [];
      const from = this.#starts[start]!;
      const data = await this.#readRange(handle, from, this.#ends[end - 1]!);
      const messages: Message[] = [];
      const slice = timeSlice(this.sliceMs);
      for (let i = start; i < end; i++) {
        messages.push(parseStored(data.toString("utf8", this.#starts[i]! - from, this.#ends[i]! - from), this.file, this.module));
        if (slice.due()) await slice.yield();
      }
      this.yields += slice.yields;
      return messages;
    });
  }

  async count(): Promise<number> {
    await this.refresh();
    return this.#starts.length;
  }

  /** What listSessions reports: undefined when the file is not there. `updatedAt` is the file's mtime (the store's last change). */
  async summary(): Promise<Omit<SessionSummary, "sessionId"> | undefined> {
    await this.refresh();
    if (!this.#exists) return undefined;
    return { count: this.#starts.length, bytes: this.#consumed, ...(this.#mtime === undefined ? {} : { updatedAt: this.#mtime.toISOString() }) };
  }

  /** Brings the index up to the file as it is now. */
  refresh(): Promise<void> {
    return this.#withFile(async () => undefined);
  }

  /** Runs `use` after bringing the index up to date, with the file open (undefined when it is gone); one at a time. */
  #withFile<T>(use: (handle: FileHandle | undefined) => Promise<T>): Promise<T> {
    const next = this.#queue.then(async () => {
      const handle = await this.#update();
      try {
        return await use(handle);
      } finally {
        await handle?.close().catch(() => undefined);
      }
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #update(): Promise<FileHandle | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.file, "r");
    } catch (error) {
      if (errnoOf(error) !== "ENOENT") throw storageUnavailable(error, this.module, this.file, `open ${this.file}`);
      this.#reset(false);
      return undefined;
    }
    try {
      const now = await handle.stat();
      const identity = `${now.dev}:${now.ino}`;
      if (this.#exists && identity === this.#identity && now.size === this.#seenSize && now.mtimeMs === this.#mtime?.getTime()) return handle;
      if (!this.#exists || identity !== this.#identity || now.size < this.#consumed || !(await this.#sameFingerprint(handle))) this.#reset(true);
      this.#identity = identity;
      this.#mtime = now.mtime;
      this.#seenSize = now.size;
      await this.#consume(handle, now.size);
      return handle;
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw storageUnavailable(error, this.module, this.file, `read ${this.file}`);
    }
  }

  #reset(exists: boolean): void {
    this.#starts = [];
    this.#ends = [];
    this.#problems = [];
    this.#lines = 0;
    this.#consumed = 0;
    this.#fingerprint = Buffer.alloc(0);
    this.#exists = exists;
    if (!exists) {
      this.#identity = "";
      this.#mtime = undefined;
      this.#seenSize = -1;
    }
  }

  async #sameFingerprint(handle: FileHandle): Promise<boolean> {
    const length = this.#fingerprint.length;
    if (length === 0) return true;
    const now = Buffer.alloc(length);
    const { bytesRead } = await handle.read(now, 0, length, this.#consumed - length);
    return bytesRead === length && now.equals(this.#fingerprint);
  }

  /**
   * Indexes the complete lines of [consumed, size) in chunks of CHUNK_BYTES (a line longer than a
   * chunk widens it), giving the event loop a turn between chunks and after every SLICE_MS of
   * parsing: a large file read for the first time neither takes its size in memory at once nor
   * holds the loop for more than a few milliseconds. An unterminated last line stays for later.
   */
  async #consume(handle: FileHandle, size: number): Promise<void> {
    const slice = timeSlice(this.sliceMs);
    try {
      await this.#consumeSliced(handle, size, CHUNK_BYTES, slice);
    } finally {
      this.yields += slice.yields;
    }
  }

  async #consumeSliced(handle: FileHandle, size: number, want: number, slice: TimeSlice): Promise<void> {
    while (this.#consumed < size) {
      const base = this.#consumed;
      const data = Buffer.allocUnsafe(Math.min(want, size - base));
      let done = 0;
      while (done < data.length) {
        const { bytesRead } = await handle.read(data, done, data.length - done, base + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      let from = 0;
      for (let nl = data.indexOf(NEWLINE, 0); nl !== -1 && nl < done; nl = data.indexOf(NEWLINE, from)) {
        this.#take(data.subarray(from, nl), base + from);
        from = nl + 1;
        if (slice.due()) await slice.yield();
      }
      if (from === 0) {
        // No whole line in this chunk: the end of the file (a line being written) or a longer line.
        if (base + done >= size) return;
        want *= 2;
        continue;
      }
      this.#consumed = base + from;
      this.#remember(data, from);
      want = CHUNK_BYTES;
      if (this.#consumed < size) await slice.yield();
    }
  }

  /** The fingerprint is the bytes just before the consumed end: `data[0, end)` are the last bytes consumed. */
  #remember(data: Buffer, end: number): void {
    const keep = Math.min(FINGERPRINT_BYTES, this.#consumed);
    const tail = Buffer.alloc(keep);
    if (keep <= end) data.copy(tail, 0, end - keep, end);
    else {
      this.#fingerprint.copy(tail, 0, this.#fingerprint.length - (keep - end));
      data.copy(tail, keep - end, 0, end);
    }
    this.#fingerprint = tail;
  }

  #take(line: Buffer, start: number): void {
    this.#lines++;
    if (isBlank(line)) return;
    const decoded = decodeRecord(line.toString("utf8"));
    if (!decoded.ok) {
      const preview = line.subarray(0, 120).toString("utf8");
      this.#problems.push({ kind: "corrupt-record", line: this.#lines, offset: start, bytes: line.length, reason: `${decoded.reason}; skipped`, preview });
      return;
    }
    this.#starts.push(start);
    this.#ends.push(start + line.length);
  }

  async #readRange(handle: FileHandle, from: number, to: number): Promise<Buffer> {
    const data = Buffer.allocUnsafe(to - from);
    try {
      await readFully(handle, data, from, "the session file is shorter than its index (truncated outside the writer)");
    } catch (error) {
      throw storageUnavailable(error, this.module, this.file, `read ${this.file}`);
    }
    return data;
  }
}

/** Fills `data` with the file's bytes from `position` on; a file that ends first is Error(`shortMessage`). */
export async function readFully(handle: FileHandle, data: Buffer, position: number, shortMessage: string): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesRead } = await handle.read(data, done, data.length - done, position + done);
    if (bytesRead === 0) throw new Error(shortMessage);
    done += bytesRead;
  }
}

function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
}
