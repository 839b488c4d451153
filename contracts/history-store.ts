import type { Message } from "./generated/message.js";

/**
 * HistoryStore contract, version 4 (contracts/HISTORY-STORES.md); version 3 added the optional
 * SessionAttachments capability below, version 4 idempotent appends and STORAGE_WRITE_UNCERTAIN.
 *
 * Where a persistent context manager keeps its history. One instance serves many agents and many
 * sessions; a history is keyed by (agent id, session id) and is an ordered list of messages. Implementations: memory and JSONL (modules/stores),
 * PostgreSQL and Redis (scale-out). Every implementation runs the conformance suite
 * `describeHistoryStoreContract` from `amplifier-ts/testing`.
 *
 * Semantics every store keeps (the suite checks each one):
 *
 * | rule | meaning |
 * |---|---|
 * | order | messages come back in the order their calls were made, per session, also when callers do not await each other |
 * | copies | a store keeps its own copy: mutating a message after passing it, or one read back, changes nothing stored |
 * | JSON values | a message is stored as its JSON text: `undefined` properties vanish, as with `JSON.stringify` |
 * | all or nothing | a call rejected with STORAGE_WRITE_FAILED or a refusal (INVALID_…) stored nothing: `appendMany`/`replace` with one bad message change nothing |
 * | idempotent appends | `append`/`appendMany` skip every message whose non-empty `metadata.id` the (agent, session) already holds, and the repeats of an id within one call: a retry of a stored message is a no-op (it keeps its first place and content). Messages without an id are always appended. `replace` stores its list exactly; afterwards the ids are those of the new list |
 * | unknown outcomes | a write that may have been applied but whose result the store cannot learn rejects with STORAGE_WRITE_UNCERTAIN (`details.messageIds`); retrying it is safe. STORAGE_WRITE_FAILED means nothing of the call was stored |
 * | ephemeral | `metadata.ephemeral` messages are refused with `INVALID_MESSAGE` (they are never persisted) |
 * | Unicode | every string round-trips exactly; a store that cannot hold NUL or lone surrogates refuses the message with `INVALID_MESSAGE`, never alters it |
 * | session ids | 1-128 characters of `[A-Za-z0-9._-]`, no leading dot, no `..`; anything else → `INVALID_SESSION_ID` from every method |
 * | closed | after `close()` every method rejects with `STORE_CLOSED`; `close()` itself is idempotent |
 * | agents | every method takes an optional last argument `scope` (`read`: its options) with `agentId`; omitted → `DEFAULT_AGENT_ID` ("default"), so callers that know no agents see the store of version 1. Two agents with one session id hold two separate histories: no method for one agent reads, lists, changes or deletes the other's |
 * | agent ids | the session-id alphabet: 1-128 characters of `[A-Za-z0-9._-]`, no leading dot, no `..`; anything else → `INVALID_AGENT_ID` |
 */
export interface HistoryStore {
  /** "memory", "jsonl", "postgres" … — used in events and errors. */
  readonly kind: string;
  /**
   * Prepares a session for use (locks it where the store has single-writer sessions) and returns
   * its history with what recovery found. A context manager calls it once at mount; the other
   * methods open a session implicitly when they are first called for it.
   */
  open(sessionId: string, scope?: HistoryScope): Promise<OpenedSession>;
  /** Durable when the promise resolves (as durable as the store's configuration promises). */
  append(sessionId: string, message: Message, scope?: HistoryScope): Promise<void>;
  /** One write for all; a crash during it may keep a prefix of the messages, never a torn one. */
  appendMany(sessionId: string, messages: Message[], scope?: HistoryScope): Promise<void>;
  /** `options.agentId` scopes the read like every other method's `scope`. */
  read(sessionId: string, options?: ReadOptions): Promise<Message[]>;
  count(sessionId: string, scope?: HistoryScope): Promise<number>;
  /** Replace a session's whole history atomically (setMessages): afterwards the old or the new list, never a mix. */
  replace(sessionId: string, messages: Message[], scope?: HistoryScope): Promise<void>;
  clear(sessionId: string, scope?: HistoryScope): Promise<void>;
  /** Drops the messages whose `metadata.runId` equals `runId`, atomically, keeping the others' order. */
  clearRun(sessionId: string, runId: string, scope?: HistoryScope): Promise<void>;
  /**
   * Every session of the scope's agent holding at least one message, sorted by session id (UTF-16 code unit order,
   * as `Array.prototype.sort`). A session that was opened or cleared and holds
   * none may be listed with count 0 or left out, depending on the store.
   */
  listSessions(scope?: HistoryScope): Promise<SessionSummary[]>;
  /** Removes the session and everything stored for it; unknown sessions are a no-op. */
  deleteSession(sessionId: string, scope?: HistoryScope): Promise<void>;
  /**
   * Lets go of one session (its lock, file handle or connection state) without deleting it; the
   * next call for it opens it again. A no-op for sessions the store does not hold.
   */
  closeSession(sessionId: string, scope?: HistoryScope): Promise<void>;
  /** Finishes pending writes, releases every session and resource. Idempotent. */
  close(): Promise<void>;
}

/**
 * Optional capability of a HistoryStore (contract version 3): small documents kept per session —
 * "attachments" — beside its history, e.g. the token counts and the calibration a resume reuses
 * (context-persistent). Test for it with `hasSessionAttachments(store)`.
 *
 * | rule | meaning |
 * |---|---|
 * | key | (agent, session, name): two agents, two sessions or two names never share a document |
 * | names | `ATTACHMENT_NAME_PATTERN`: 1-64 characters of `[A-Za-z0-9_-]` (no dot, no separator: no traversal); else `INVALID_ARGUMENT` (`path: "name"`) |
 * | text | a string of at most `MAX_ATTACHMENT_BYTES` UTF-8 bytes, without NUL or lone surrogates (so every store keeps it exactly); else `INVALID_ARGUMENT` (`path: "text"`) |
 * | write | replaces the whole document atomically: a reader sees the old text or the new one, never a mix |
 * | read | the last text written, or `undefined` when there is none |
 * | lifetime | `deleteSession` deletes a session's attachments with it; `replace`, `clear` and `clearRun` keep them |
 * | not history | attachments are no messages: `read`, `count` and `listSessions` never see them; writing one adds no message |
 *
 * An attachment is a cache-like companion of the history, not part of the record a CLI export
 * copies: a reader must tolerate one that is missing or stale.
 */
export interface SessionAttachments {
  /** The session's attachment `name`, or `undefined` when none was written (or the session was deleted). */
  readAttachment(sessionId: string, name: string, scope?: HistoryScope): Promise<string | undefined>;
  /** Writes (replaces) the session's attachment `name`; durable when it resolves, as the store's messages are. */
  writeAttachment(sessionId: string, name: string, text: string, scope?: HistoryScope): Promise<void>;
}

/** Attachment names: no dot, no path separator, so a name is safe as a file-name part, a key part and a column value. */
export const ATTACHMENT_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** The largest attachment text, in UTF-8 bytes (attachments are small documents, not blobs). */
export const MAX_ATTACHMENT_BYTES = 16 * 1024 * 1024;

/** True when `store` keeps session attachments (`SessionAttachments`). */
export function hasSessionAttachments<S extends HistoryStore>(store: S | null | undefined): store is S & SessionAttachments {
  const candidate = store as Partial<SessionAttachments> | null | undefined;
  return typeof candidate?.readAttachment === "function" && typeof candidate.writeAttachment === "function";
}

/**
 * Which agent's histories a call addresses. Omitted, or `agentId` omitted: the default agent
 * (`DEFAULT_AGENT_ID`), whose data is exactly what version 1 of the contract stored.
 */
export interface HistoryScope {
  agentId?: string;
}

export interface ReadOptions extends HistoryScope {
  /** Skip this many messages from the start (stored order). A non-negative integer; default 0. */
  offset?: number;
  /** Return at most this many. A non-negative integer; default: all. */
  limit?: number;
}

/** One session's summary as listed by a store. */
export interface SessionSummary {
  sessionId: string;
  count: number;
  /** Bytes of stored JSON, where the store can tell cheaply. */
  bytes?: number;
  /** ISO-8601 time of the last change, where the store knows it. */
  updatedAt?: string;
}

/** What `open(sessionId)` returns. */
export interface OpenedSession {
  /** The session's history, in stored order; the caller owns these objects. */
  messages: Message[];
  /** Present when the stored data was damaged and the store skipped or repaired something. */
  recovered?: RecoveryReport;
}

/**
 * What a store found and did when it loaded a damaged session. Loading is never fatal because of
 * damage: unreadable records are skipped, and reported here (and by the store's own warning hook).
 */
export interface RecoveryReport {
  sessionId: string;
  /** Records that could not be read and were skipped. */
  skippedLines: number;
  /** Bytes of those records. */
  skippedBytes: number;
  problems: RecoveryProblem[];
}

export interface RecoveryProblem {
  /**
   * torn-tail: the last record was cut short (a crash mid-write); it is dropped from storage before the next write.
   * corrupt-record: a complete record in the middle is not a message; skipped, left in place until the next rewrite.
   * missing-newline: the last record is whole but its terminator is missing; kept, the terminator is added before the next write.
   */
  kind: "torn-tail" | "corrupt-record" | "missing-newline";
  /** 1-based line (or record) number in the session's storage. */
  line: number;
  /** Byte offset of the record where the store has one. */
  offset?: number;
  bytes: number;
  reason: string;
  /** The record's first bytes, for a human to recognise it. */
  preview: string;
}
