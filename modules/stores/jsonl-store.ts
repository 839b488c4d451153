import { stat, unlink } from "node:fs/promises";
import { resolve } from "node:path";
import type { HistoryScope, HistoryStore, OpenedSession, SessionAttachments, ReadOptions, RecoveryReport, SessionSummary } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import { removeTempFiles, syncDirectory } from "./atomic-file.js";
import { agentIdOf, agentSessionKey } from "./agent-id.js";
import { acquireLock } from "./file-lock.js";
import { jsonlAgentFolder, jsonlAttachmentPath, jsonlSessionPaths } from "./jsonl-paths.js";
import { deleteJsonlAttachments, readJsonlAttachment, writeJsonlAttachment } from "./jsonl-attachments.js";
import { assertAttachmentName, assertAttachmentText } from "./attachment-arguments.js";
import { JsonlSession, type FsyncMode } from "./jsonl-session.js";
import { JsonlSessionReader } from "./jsonl-session-reader.js";
import { encodeMessage, encodeMessages } from "./message-codec.js";
import { listJsonlSessionIds, listJsonlSessions } from "./session-listing.js";
import { assertSessionId } from "./session-id.js";
import { errnoOf, storageWriteFailed } from "./storage-errors.js";
import { deleteIndex, indexPathOf } from "./session-index-file.js";
import { assertRunId, resolvePage } from "./store-arguments.js";

const MODULE = "stores/jsonl";
export const DEFAULT_STORAGE_PATH = ".amplifier/sessions";
const FSYNC_MODES: Record<FsyncMode, 1> = { always: 1, batch: 1, never: 1 };

export type { FsyncMode };

export interface JsonlStoreOptions {
  /** Folder of the session files, resolved against the working directory once, here. Default `.amplifier/sessions`. */
  storagePath?: string;
  /**
   * When an acknowledged append is on disk:
   *
   * | mode | append resolves after | survives process crash | survives power loss / kernel panic | cost |
   * |---|---|---|---|---|
   * | `always` (default) | write + fdatasync of that call's records | yes | yes | one fsync per call (≈0.1-10 ms by disk) |
   * | `batch` | write + fdatasync of the group it joined | yes | yes | one fsync per group: appends issued while a write is in flight share the next one |
   * | `never` | write (in the OS page cache) | yes | no: the last seconds of messages may be lost | none; one fsync at close |
   *
   * Rewrites (replace, clear, clearRun) always fsync: skipping it could lose the whole history.
   */
  fsync?: FsyncMode;
  /** Told when a session loads with damage (torn tail, corrupt records); also returned by `open()`. */
  onRecover?: (report: RecoveryReport) => void;
  /**
   * A reader beside the writer (a listing, `sessions show`, the Inspector, a replay): the store takes
   * no lock and writes nothing — no sidecar index, no temp-file cleanup, no folder — and every call
   * looks at the file again, reading only the bytes appended since (jsonl-session-reader.ts), so it
   * follows a session another process is writing. A line still being written is not there yet.
   * Writes are STORE_READ_ONLY. Default false: the store is the session's one writer.
   */
  readOnly?: boolean;
}

/**
 * The embedded HistoryStore: one append-only JSONL file per session, in a folder per agent —
 * `<storagePath>/<id>.jsonl` for the default agent (where files written before agents already
 * are), `<storagePath>/agents/<agent>/<id>.jsonl` for any other (jsonl-paths.ts).
 *
 * - One writer per session: `<id>.lock` (see file-lock.ts). The store holds a session from its
 *   first call until `closeSession(id)`, `deleteSession(id)` or `close()`; another store instance
 *   or process gets SESSION_LOCKED meanwhile. A stale lock (its process is gone) is taken over.
 * - Read once: the file is read when the session is first used; afterwards the store serves
 *   from an index (see jsonl-session.ts). Appends are one positioned write (O(1)), in call order.
 * - Resumed without parsing: a sidecar index `<id>.jsonl.index` (byte ranges and facts of every
 *   record, sealed with the file's size, mtime and last record's hash) is kept in step with
 *   appends; when it matches the file, `open()` hands out lazy messages parsed when first read
 *   (session-index-file.ts, lazy-message.ts), else the file is scanned and the index rewritten.
 * - Damage never blocks a session: a torn last line is skipped, reported (`open()` and
 *   `onRecover`) and cut before the next append; a corrupt line in the middle is skipped and
 *   reported at every load until a rewrite (replace, clear, clearRun) drops it.
 * - Rewrites are atomic (temp file, fsync, rename, fsync folder).
 * - Files are created 0600 and the folder 0700: conversations often hold secrets.
 * - Session attachments (SessionAttachments): `<dir>/<id>.<name>.json` each, written atomically
 *   under the session's lock, read without it, deleted with the session (jsonl-attachments.ts).
 * - Failures: STORAGE_UNAVAILABLE when a session cannot be opened (folder not creatable or
 *   writable, path is a file, read-only disk); STORAGE_WRITE_FAILED when a write fails (nothing
 *   of it is kept, in the file or in the index).
 */
export class JsonlStore implements HistoryStore, SessionAttachments {
  readonly kind = "jsonl";
  readonly storagePath: string;
  readonly fsync: FsyncMode;
  /** A reader: no lock, no write, follows the writer (JsonlStoreOptions.readOnly). */
  readonly readOnly: boolean;
  private readonly onRecover: ((report: RecoveryReport) => void) | undefined;
  /** Held sessions by agentSessionKey(agent, session). */
  private readonly sessions = new Map<string, JsonlSession>();
  /** Followed sessions of a readOnly store, by the same keys. */
  private readonly readers = new Map<string, JsonlSessionReader>();
  /** Sessions being closed or deleted (same keys): the next holder waits for them. */
  private readonly releasing = new Map<string, Promise<unknown>>();
  /** Attachment writes in flight by file: the next write of the file, a read of it and close() wait for them. */
  private readonly attachmentWrites = new Map<string, Promise<void>>();
  private closing: Promise<void> | undefined;

  constructor(options: JsonlStoreOptions = {}) {
    const { storagePath = DEFAULT_STORAGE_PATH, fsync = "always", onRecover, readOnly = false } = checkOptions(options);
    this.storagePath = resolve(storagePath);
    this.fsync = fsync;
    this.readOnly = readOnly;
    this.onRecover = onRecover;
  }

  async open(sessionId: string, scope?: HistoryScope): Promise<OpenedSession> {
    if (this.readOnly) return this.reader(sessionId, scope).open();
    return this.session(sessionId, scope).open();
  }

  async append(sessionId: string, message: Message, scope?: HistoryScope): Promise<void> {
    const id = this.writable(sessionId);
    agentIdOf(scope, MODULE);
    const record = encodeMessage(message, "message", MODULE);
    return this.session(id, scope).append([record]);
  }

  async appendMany(sessionId: string, messages: Message[], scope?: HistoryScope): Promise<void> {
    const id = this.writable(sessionId);
    agentIdOf(scope, MODULE);
    const records = encodeMessages(messages, "messages", MODULE);
    const session = this.session(id, scope);
    // Still queued when empty: the call keeps its place in the order (and surfaces a failed load).
    return records.length > 0 ? session.append(records) : session.loaded;
  }

  async read(sessionId: string, options?: ReadOptions): Promise<Message[]> {
    const id = this.checkId(sessionId);
    resolvePage(options, 0, MODULE);
    const page = (length: number) => resolvePage(options, length, MODULE);
    return this.readOnly ? this.reader(id, options).read(page) : this.session(id, options).read(page);
  }

  async count(sessionId: string, scope?: HistoryScope): Promise<number> {
    if (this.readOnly) return this.reader(sessionId, scope).count();
    return this.session(sessionId, scope).count();
  }

  async replace(sessionId: string, messages: Message[], scope?: HistoryScope): Promise<void> {
    const id = this.writable(sessionId);
    agentIdOf(scope, MODULE);
    const records = encodeMessages(messages, "messages", MODULE);
    return this.session(id, scope).replace(records);
  }

  async clear(sessionId: string, scope?: HistoryScope): Promise<void> {
    this.writable(sessionId);
    return this.session(sessionId, scope).replace([]);
  }

  async clearRun(sessionId: string, runId: string, scope?: HistoryScope): Promise<void> {
    const id = this.writable(sessionId);
    assertRunId(runId, MODULE);
    return this.session(id, scope).clearRun(runId);
  }

  /** The scope's agent's sessions: the `.jsonl` files of its folder. */
  async listSessions(scope?: HistoryScope): Promise<SessionSummary[]> {
    this.live();
    const agent = agentIdOf(scope, MODULE);
    const folder = jsonlAgentFolder(this.storagePath, agent);
    if (!this.readOnly) return listJsonlSessions(folder, (id) => this.sessions.get(agentSessionKey(agent, id))?.summary(), MODULE);
    // A reader lists from its followed sessions: a second listing reads only what was appended.
    const summaries: SessionSummary[] = [];
    for (const id of await listJsonlSessionIds(folder, MODULE)) {
      const summary = await this.reader(id, scope).summary();
      if (summary !== undefined) summaries.push({ sessionId: id, ...summary });
    }
    return summaries;
  }

  async deleteSession(sessionId: string, scope?: HistoryScope): Promise<void> {
    const id = this.writable(sessionId);
    const agent = agentIdOf(scope, MODULE);
    const key = agentSessionKey(agent, id);
    const held = this.sessions.get(key);
    if (held) {
      this.sessions.delete(key);
      return this.track(key, held.destroy());
    }
    return this.track(key, this.deleteUnheld(agent, id, this.releasing.get(key)));
  }

  async closeSession(sessionId: string, scope?: HistoryScope): Promise<void> {
    const id = this.checkId(sessionId);
    const key = agentSessionKey(agentIdOf(scope, MODULE), id);
    this.readers.delete(key);
    const held = this.sessions.get(key);
    if (!held) return this.releasing.get(key)?.then(() => undefined, () => undefined);
    this.sessions.delete(key);
    return this.track(key, held.close());
  }

  /** The attachment's file, `<agent folder>/<sessionId>.<name>.json`; undefined when none was written. */
  async readAttachment(sessionId: string, name: string, scope?: HistoryScope): Promise<string | undefined> {
    const id = this.checkId(sessionId);
    const agent = agentIdOf(scope, MODULE);
    assertAttachmentName(name, MODULE);
    const path = jsonlAttachmentPath(this.storagePath, agent, id, name);
    await this.releasing.get(agentSessionKey(agent, id));
    await this.attachmentWrites.get(path);
    return readJsonlAttachment(path, MODULE);
  }

  /** Replaces the attachment's file atomically, holding the session (its lock) as every write does. */
  async writeAttachment(sessionId: string, name: string, text: string, scope?: HistoryScope): Promise<void> {
    const id = this.writable(sessionId);
    const agent = agentIdOf(scope, MODULE);
    assertAttachmentName(name, MODULE);
    assertAttachmentText(text, MODULE);
    const session = this.session(id, scope);
    const path = jsonlAttachmentPath(this.storagePath, agent, id, name);
    // Writes of one attachment in call order (the last call's text stays), after the session holds its lock.
    const write = (this.attachmentWrites.get(path) ?? Promise.resolve()).then(async () => {
      await session.loaded;
      await writeJsonlAttachment(jsonlAgentFolder(this.storagePath, agent), path, text, MODULE);
    });
    const settled = write.then(() => undefined, () => undefined);
    this.attachmentWrites.set(path, settled);
    void settled.then(() => {
      if (this.attachmentWrites.get(path) === settled) this.attachmentWrites.delete(path);
    });
    return write;
  }

  /** Where the attachment `name` of a session is kept (messages and events name it). */
  attachmentPath(sessionId: string, name: string, scope?: HistoryScope): string {
    return jsonlAttachmentPath(this.storagePath, agentIdOf(scope, MODULE), assertSessionId(sessionId, MODULE), assertAttachmentName(name, MODULE));
  }

  /** Waits for every queued operation, flushes, closes every file and releases every lock. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.attachmentWrites.values()]);
      this.readers.clear();
      const held = [...this.sessions.values()];
      this.sessions.clear();
      const results = await Promise.allSettled([...held.map((s) => s.close()), ...this.releasing.values()]);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected" && isCloseFailure(r.reason));
      if (failed) throw failed.reason;
    })();
    return this.closing;
  }

  // --- private ----------------------------------------------------------------------------------

  private live(): void {
    if (this.closing) throw createError("STORE_CLOSED", undefined, { module: MODULE, file: this.storagePath });
  }

  private checkId(sessionId: string): string {
    this.live();
    return assertSessionId(sessionId, MODULE);
  }

  /** The checked id of a session about to be written; STORE_READ_ONLY for a reader, before anything is touched. */
  private writable(sessionId: string): string {
    const id = this.checkId(sessionId);
    if (this.readOnly) {
      throw createError("STORE_READ_ONLY", `This JSONL store was opened read-only: session "${id}" cannot be written through it`, {
        module: MODULE,
        file: this.storagePath,
        expected: "a store opened without readOnly (the session's one writer)",
      });
    }
    return id;
  }

  /** The agent's session as a readOnly store follows it: one reader per session, made on first use. */
  private reader(sessionId: string, scope: HistoryScope | undefined): JsonlSessionReader {
    const id = this.checkId(sessionId);
    const agent = agentIdOf(scope, MODULE);
    const key = agentSessionKey(agent, id);
    let reader = this.readers.get(key);
    if (reader === undefined) {
      reader = new JsonlSessionReader(id, jsonlSessionPaths(this.storagePath, agent, id).file, MODULE);
      this.readers.set(key, reader);
    }
    return reader;
  }

  /** The agent's session's single JsonlSession, created (and its load queued) synchronously so call order holds. */
  private session(sessionId: string, scope: HistoryScope | undefined): JsonlSession {
    const id = this.checkId(sessionId);
    const agent = agentIdOf(scope, MODULE);
    const key = agentSessionKey(agent, id);
    let session = this.sessions.get(key);
    if (session) return session;
    const paths = jsonlSessionPaths(this.storagePath, agent, id);
    session = new JsonlSession({ sessionId: id, paths, fsync: this.fsync, module: MODULE, onRecover: this.onRecover, readOnly: this.readOnly, after: this.releasing.get(key) });
    const created = session;
    this.sessions.set(key, created);
    // A failed load (locked, storage unavailable) is forgotten, so the next call tries again.
    created.loaded.catch(() => {
      if (this.sessions.get(key) === created) this.sessions.delete(key);
    });
    return created;
  }

  private track(id: string, done: Promise<void>): Promise<void> {
    const settled = done.then(() => undefined, () => undefined);
    this.releasing.set(id, settled);
    void settled.then(() => {
      if (this.releasing.get(id) === settled) this.releasing.delete(id);
    });
    return done;
  }

  /** Deleting a session nobody here holds still takes its lock: never delete under another writer. */
  private async deleteUnheld(agent: string, id: string, after: Promise<unknown> | undefined): Promise<void> {
    await after;
    const { dir, file, lock: lockPath } = jsonlSessionPaths(this.storagePath, agent, id);
    try {
      await stat(dir);
    } catch (error) {
      if (errnoOf(error) === "ENOENT") return;
    }
    const lock = await acquireLock(lockPath, MODULE, id);
    try {
      await unlink(file).catch((error: unknown) => {
        if (errnoOf(error) !== "ENOENT") throw storageWriteFailed(error, MODULE, file, "delete the session file");
      });
      await removeTempFiles(file);
      await deleteIndex(file);
      await removeTempFiles(indexPathOf(file));
      await deleteJsonlAttachments(dir, id, MODULE);
      await syncDirectory(dir).catch(() => undefined);
    } finally {
      await lock.release();
    }
  }
}

function isCloseFailure(reason: unknown): boolean {
  return (reason as { code?: string } | null)?.code === "STORAGE_WRITE_FAILED";
}

function checkOptions(options: JsonlStoreOptions): JsonlStoreOptions {
  const fail = (path: string, expected: string, given: unknown) =>
    createError("INVALID_ARGUMENT", `JsonlStore option ${path} is not valid`, { module: MODULE, path: `options.${path}`, expected, given });
  if (typeof options !== "object" || options === null) throw fail("", "an options object", options);
  const { storagePath, fsync, onRecover, readOnly } = options;
  if (storagePath !== undefined && (typeof storagePath !== "string" || storagePath.length === 0 || storagePath.includes("\0"))) {
    throw fail("storagePath", "a non-empty folder path", storagePath);
  }
  if (fsync !== undefined && !(typeof fsync === "string" && fsync in FSYNC_MODES)) throw fail("fsync", '"always", "batch" or "never"', fsync);
  if (onRecover !== undefined && typeof onRecover !== "function") throw fail("onRecover", "a function", onRecover);
  if (readOnly !== undefined && typeof readOnly !== "boolean") throw fail("readOnly", "true or false", readOnly);
  return options;
}
