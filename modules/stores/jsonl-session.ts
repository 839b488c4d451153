import { constants } from "node:fs";
import { open, unlink, type FileHandle } from "node:fs/promises";
import type { Message } from "@amplifier-ts/contracts";
import type { OpenedSession, RecoveryReport } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import { removeTempFiles, syncDirectory, writeFileAtomic } from "./atomic-file.js";
import { ensureDirectory, removeEmptyDirectories } from "./ensure-directory.js";
import { deleteJsonlAttachments, removeAbandonedAttachmentTemps } from "./jsonl-attachments.js";
import { acquireLock, type FileLock } from "./file-lock.js";
import { recoveryReport, scanJsonl, type RecordIndex } from "./jsonl-scan.js";
import { parseStored, type EncodedMessage } from "./message-codec.js";
import { emptyIndex, extendIndex, keepRecords, layoutRecords } from "./record-layout.js";
import type { JsonlSessionPaths } from "./jsonl-paths.js";
import { errnoOf, storageUnavailable, storageWriteFailed, storageWriteUncertain } from "./storage-errors.js";
import { recordsToAppend } from "./message-ids.js";
import type { Page } from "./store-arguments.js";
import { WriteQueue } from "./write-queue.js";
import { lazyMessages } from "./file-record-source.js";
import { SessionIndexKeeper } from "./session-index-keeper.js";
import { indexPathOf } from "./session-index-file.js";
import { readFully } from "./jsonl-session-reader.js";

export type FsyncMode = "always" | "batch" | "never";

export interface JsonlSessionConfig {
  sessionId: string;
  /** Its folder, file and lock (jsonl-paths.ts). */
  paths: JsonlSessionPaths;
  fsync: FsyncMode;
  module: string;
  onRecover?: (report: RecoveryReport) => void;
  /**
   * Opened to be read (JsonlStoreOptions.readOnly): the load writes no sidecar index and deletes
   * no stale one — a trusted index is still used; the first append writes (or repairs) it.
   */
  readOnly?: boolean;
  /** Settles when an earlier holder of this session in the same store has let go of it. */
  after?: Promise<unknown>;
}

/** Largest group commit, in bytes of JSON. */
const MAX_BATCH_BYTES = 8 * 1024 * 1024;

/**
 * One open session of a JsonlStore: its lock, its one file handle, and an index of where each
 * record lives. The file is read once, at load; afterwards
 * - `count` is the index's length, appends are one positioned write at the known end (O(1));
 * - the first `open`/`read` gets the messages parsed at load (no second parse), later reads
 *   re-read only the requested byte range — the store keeps positions, not a second copy of
 *   the history (the context manager keeps that one);
 * - the index changes only after a write succeeded, so a failed write leaves it as it was;
 * - appends are idempotent by message id (message-ids.ts): `ids` holds the session's ids (from the
 *   sidecar index's facts or the scan at load), so a retry of a stored message writes nothing.
 *
 * Every operation runs through the session's WriteQueue, in call order.
 */
export class JsonlSession {
  readonly file: string;
  readonly lockPath: string;
  /** Settles when the load finished; rejects with its STORAGE_UNAVAILABLE or SESSION_LOCKED. */
  readonly loaded: Promise<void>;
  private readonly queue: WriteQueue<EncodedMessage>;
  private handle: FileHandle | undefined;
  private lock: FileLock | undefined;
  private index: RecordIndex = emptyIndex();
  /** Each record's message id, parallel to `index`, and the set of them (idempotent appends). */
  private idAt: (string | undefined)[] = [];
  private ids = new Set<string>();
  /** End of the valid records: where the next record goes. */
  private size = 0;
  /** The file's real size (-1 unknown); differs from `size` while a torn tail or a failed write's bytes remain. */
  private fileSize = 0;
  private missingNewline = false;
  private fresh: Message[] | undefined;
  private recovered: RecoveryReport | undefined;
  private unsynced = false;
  private updatedAt: Date | undefined;
  private loadError: unknown;
  /** Folders this session's load created; removed again at close while still empty, so a look leaves nothing behind. */
  private createdFolders: string[] = [];
  /** The sidecar index beside the file (session-index-keeper.ts): a resume parses only what a window shows. */
  private readonly indexKeeper: SessionIndexKeeper;

  constructor(private readonly config: JsonlSessionConfig) {
    this.file = config.paths.file;
    this.lockPath = config.paths.lock;
    this.indexKeeper = new SessionIndexKeeper(this.file);
    this.queue = new WriteQueue<EncodedMessage>({
      commit: (records) => this.commit(records),
      coalesce: config.fsync !== "always",
      maxBatchWeight: MAX_BATCH_BYTES,
      weight: (record) => record.json.length,
    });
    this.loaded = this.queue.run(() => this.load());
    this.loaded.catch(() => undefined);
  }

  open(): Promise<OpenedSession> {
    return this.queue.run(async () => {
      const messages = await this.readPage({ start: 0, end: this.index.starts.length });
      return this.recovered ? { messages, recovered: this.recovered } : { messages };
    });
  }

  append(records: EncodedMessage[]): Promise<void> {
    return this.queue.append(records);
  }

  read(page: (length: number) => Page): Promise<Message[]> {
    return this.queue.run(() => this.readPage(page(this.index.starts.length)));
  }

  count(): Promise<number> {
    return this.queue.run(async () => this.index.starts.length);
  }

  replace(records: EncodedMessage[]): Promise<void> {
    return this.queue.run(async () => {
      const { body, index } = layoutRecords(records);
      await this.indexKeeper.invalidate();
      await this.rewrite(body, index);
      this.adoptIds(records.map((r) => r.facts.id));
      await this.indexKeeper.rewritten(records, index.starts, index.ends);
    });
  }

  clearRun(runId: string): Promise<void> {
    return this.queue.run(async () => {
      if (!this.index.runIds.includes(runId)) return;
      const data = await this.readRange(0, this.size);
      const { body, index } = keepRecords(data, this.index, (i) => this.index.runIds[i] !== runId);
      // The kept records' facts are not at hand: the next load scans the file and writes the index again.
      await this.indexKeeper.invalidate();
      const kept = this.idAt.filter((_, i) => this.index.runIds[i] !== runId);
      await this.rewrite(body, index);
      this.adoptIds(kept);
    });
  }

  /** What listSessions reports for a loaded session; undefined while loading or without a file. */
  summary(): { count: number; bytes: number; updatedAt: string | undefined } | undefined {
    if (this.queue.isPoisoned || this.lock === undefined || this.updatedAt === undefined) return undefined;
    return { count: this.index.starts.length, bytes: this.size, updatedAt: this.updatedAt.toISOString() };
  }

  /** Flushes ("never" mode: one final fsync), closes the file, releases the lock; later calls get STORE_CLOSED. */
  close(): Promise<void> {
    return this.finish(async () => {
      if (!this.unsynced || !this.handle) return;
      await this.handle.datasync().catch((error: unknown) => {
        throw storageWriteFailed(error, this.config.module, this.file, `flush ${this.file} at close`);
      });
    }, true);
  }

  /** Removes the session's file (and its temp files), then lets go like close(). */
  destroy(): Promise<void> {
    return this.finish(async () => {
      await this.handle?.close().catch(() => undefined);
      this.handle = undefined;
      try {
        await unlink(this.file);
      } catch (error) {
        if (errnoOf(error) !== "ENOENT") throw storageWriteFailed(error, this.config.module, this.file, "delete the session file");
      }
      await removeTempFiles(this.file);
      await this.indexKeeper.invalidate();
      await removeTempFiles(indexPathOf(this.file));
      await deleteJsonlAttachments(this.config.paths.dir, this.config.sessionId, this.config.module);
      await syncDirectory(this.config.paths.dir).catch(() => undefined);
    }, false);
  }

  // --- inside the queue -----------------------------------------------------------------------

  private async load(): Promise<void> {
    try {
      await this.config.after?.catch(() => undefined);
      const { paths: { dir }, module, sessionId } = this.config;
      this.lock = await this.lockInFolder();
      try {
        await this.readFile();
      } catch (error) {
        await this.handle?.close().catch(() => undefined);
        this.handle = undefined;
        await this.lock.release();
        throw error;
      }
    } catch (error) {
      this.loadError = error ?? new Error("load failed");
      this.queue.poison(error);
      throw error;
    }
  }

  /**
   * Creates the folder if needed and takes the session's lock in it. Another session that created
   * the folder may remove it again (empty, at its close) between the two steps: the lock then fails
   * with ENOENT, and the folder is made again.
   */
  private async lockInFolder(): Promise<FileLock> {
    const { paths: { dir }, module, sessionId } = this.config;
    for (let attempt = 1; ; attempt++) {
      try {
        this.createdFolders.push(...(await ensureDirectory(dir)));
      } catch (error) {
        throw storageUnavailable(error, module, dir, `create the session folder ${dir}`);
      }
      try {
        return await acquireLock(this.lockPath, module, sessionId);
      } catch (error) {
        const cause = (error as { details?: { cause?: unknown } } | null)?.details?.cause;
        if (attempt >= 3 || errnoOf(cause) !== "ENOENT") throw error;
      }
    }
  }

  private async readFile(): Promise<void> {
    const { module, sessionId } = this.config;
    await removeTempFiles(this.file);
    await removeTempFiles(indexPathOf(this.file));
    // An attachment's temp file (the calibration's) a kill -9 left would otherwise stay forever.
    await removeAbandonedAttachmentTemps(this.config.paths.dir, sessionId);
    try {
      this.handle = await open(this.file, "r+");
    } catch (error) {
      if (errnoOf(error) !== "ENOENT") throw storageUnavailable(error, module, this.file, `open ${this.file}`);
      this.fresh = [];
      return;
    }
    const stat = await this.handle.stat();
    const readOnly = this.config.readOnly === true;
    const indexed = await this.indexKeeper.load(this.handle, stat.size, stat.mtimeMs, readOnly);
    if (indexed) {
      // A trusted index: nothing is read or parsed now; each message is parsed when first read.
      this.index = { starts: indexed.map((r) => r.start), ends: indexed.map((r) => r.end), runIds: indexed.map((r) => r.facts.runId) };
      this.adoptIds(indexed.map((r) => r.facts.id));
      this.size = this.fileSize = stat.size;
      this.fresh = lazyMessages(this.file, module, indexed);
      this.updatedAt = stat.mtime;
      return;
    }
    const scan = await scanJsonl(this.handle).catch((error: unknown) => {
      throw storageUnavailable(error, module, this.file, `read ${this.file}`);
    });
    this.index = { starts: scan.starts, ends: scan.ends, runIds: scan.runIds };
    this.adoptIds(scan.messages.map((m) => (typeof m.metadata?.id === "string" ? m.metadata.id : undefined)));
    this.size = scan.validEnd;
    this.fileSize = scan.size;
    this.missingNewline = scan.missingNewline;
    this.fresh = scan.messages;
    this.updatedAt = (await this.handle.stat()).mtime;
    if (scan.problems.length === 0) {
      const n = scan.starts.length;
      const last = n === 0 ? undefined : await this.readRange(scan.starts[n - 1]!, scan.ends[n - 1]!);
      if (readOnly) this.indexKeeper.defer(scan.messages, scan.starts, scan.ends, last);
      else await this.indexKeeper.rebuild(scan.messages, scan.starts, scan.ends, last);
      return;
    }
    this.recovered = recoveryReport(sessionId, scan.problems);
    try {
      this.config.onRecover?.(this.recovered);
    } catch (error) {
      process.emitWarning(`onRecover threw: ${(error as Error).message}`, { code: "AMPLIFIER_ON_RECOVER" });
    }
  }

  /**
   * One write of every record of a batch at the end of the valid data, then the fsync the mode asks
   * for. Records whose ids the session holds (a retry) are left out; a batch of retries writes nothing.
   */
  private async commit(batch: EncodedMessage[]): Promise<void> {
    const records = recordsToAppend(batch, (id) => this.ids.has(id));
    if (records.length === 0) return;
    this.fresh = undefined;
    const lead = this.missingNewline ? "\n" : "";
    const body = Buffer.from(`${lead}${records.map((r) => r.json).join("\n")}\n`);
    // A session loaded read-only writes its sidecar index now, before the file changes (its seal is the file as loaded).
    await this.indexKeeper.beforeAppend();
    const progress = { written: 0 };
    try {
      const handle = await this.writableHandle();
      if (this.fileSize !== this.size) await handle.truncate(this.size);
      this.fileSize = -1;
      await writeAll(handle, body, this.size, progress);
      if (this.config.fsync === "never") this.unsynced = true;
      else await handle.datasync();
    } catch (error) {
      // Cut whatever part of the batch reached the file, so it stays valid JSONL and the failure is
      // true ("nothing was stored"). When the cut fails too, the records may be in the file for the
      // next load to find: the outcome is unknown (a retry is a no-op there: the ids are indexed at load).
      const cut = this.handle ? await this.handle.truncate(this.size).then(() => true, () => false) : false;
      if (cut) this.fileSize = this.size;
      const mayRemain = !cut && progress.written > 0; // no byte written (or all cut off again): nothing was stored
      const action = `append to ${this.file}`;
      throw mayRemain ? storageWriteUncertain(error, this.config.module, this.file, action, records.map((r) => r.facts.id)) : storageWriteFailed(error, this.config.module, this.file, action);
    }
    extendIndex(this.index, records, this.size + lead.length);
    for (const record of records) this.noteId(record.facts.id);
    await this.indexKeeper.appended(records, this.size + lead.length, this.handle!);
    this.size = this.fileSize = this.size + body.length;
    this.missingNewline = false;
    this.updatedAt = new Date();
  }

  private async rewrite(body: Buffer, index: RecordIndex): Promise<void> {
    this.fresh = undefined;
    try {
      await writeFileAtomic(this.file, body);
    } catch (error) {
      throw storageWriteFailed(error, this.config.module, this.file, `rewrite ${this.file}`);
    }
    this.adoptRewrite(body.length, index);
    try {
      await syncDirectory(this.config.paths.dir);
    } catch (error) {
      // The new content is in place (and what this store now serves); only its durability is unconfirmed.
      throw storageWriteFailed(error, this.config.module, this.file, `make the rewrite of ${this.file} durable (fsync of the folder)`);
    }
  }

  private adoptIds(ids: (string | undefined)[]): void {
    this.idAt = [];
    this.ids = new Set();
    for (const id of ids) this.noteId(id);
  }

  private noteId(id: string | undefined): void {
    this.idAt.push(id);
    if (id !== undefined && id !== "") this.ids.add(id);
  }

  private adoptRewrite(size: number, index: RecordIndex): void {
    // The old handle points at the replaced file; the next write or read opens the new one.
    void this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    this.index = index;
    this.size = this.fileSize = size;
    this.missingNewline = false;
    this.recovered = undefined;
    this.unsynced = false;
    this.updatedAt = new Date();
  }

  private async readPage({ start, end }: Page): Promise<Message[]> {
    if (this.fresh) {
      // Parsed at load and held by nobody else: hand them over once instead of parsing twice.
      const messages = start === 0 && end === this.fresh.length ? this.fresh : this.fresh.slice(start, end);
      this.fresh = undefined;
      return messages;
    }
    if (end <= start) return [];
    const { starts, ends } = this.index;
    const from = starts[start]!;
    const data = await this.readRange(from, ends[end - 1]!);
    const messages: Message[] = [];
    for (let i = start; i < end; i++) {
      messages.push(parseStored(data.toString("utf8", starts[i]! - from, ends[i]! - from), this.file, this.config.module));
    }
    return messages;
  }

  private async readRange(from: number, to: number): Promise<Buffer> {
    const data = Buffer.allocUnsafe(to - from);
    if (data.length === 0) return data;
    try {
      await readFully(await this.writableHandle(), data, from, "the session file is shorter than its index (changed outside the store)");
    } catch (error) {
      throw storageUnavailable(error, this.config.module, this.file, `read ${this.file}`);
    }
    return data;
  }

  /** The session's one handle, opened (and created) on first need; a new file's name is made durable. */
  private async writableHandle(): Promise<FileHandle> {
    if (this.handle) return this.handle;
    const handle = await open(this.file, constants.O_RDWR | constants.O_CREAT, 0o600);
    try {
      this.fileSize = (await handle.stat()).size;
      if (this.config.fsync !== "never") await syncDirectory(this.config.paths.dir);
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    this.handle = handle;
    return handle;
  }

  private finish(last: () => Promise<void>, quietIfNeverLoaded: boolean): Promise<void> {
    const done = this.queue.run(async () => {
      try {
        await last();
      } finally {
        await this.handle?.close().catch(() => undefined);
        this.handle = undefined;
        await this.indexKeeper.close();
        await this.lock?.release();
        await removeEmptyDirectories(this.createdFolders);
        this.queue.poison(createError("STORE_CLOSED", `Session "${this.config.sessionId}" was closed`, { module: this.config.module }));
      }
    });
    // Closing a session that never loaded (locked, storage unavailable) has nothing to release.
    return quietIfNeverLoaded ? done.catch((error: unknown) => (this.loadError !== undefined ? undefined : Promise.reject(error))) : done;
  }
}

/** Writes all of `data` at `position`; `progress.written` says how far it got (a failed write's bytes may be in the file). */
async function writeAll(handle: FileHandle, data: Buffer, position: number, progress: { written: number }): Promise<void> {
  while (progress.written < data.length) {
    const { bytesWritten } = await handle.write(data, progress.written, data.length - progress.written, position + progress.written);
    progress.written += bytesWritten;
  }
}
