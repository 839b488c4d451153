import type { HistoryScope, HistoryStore, OpenedSession, ReadOptions, SessionAttachments, SessionSummary } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import { decodeStoredText, encodeMessage, encodeMessages, type EncodedMessage } from "./message-codec.js";
import { agentIdOf, agentSessionKey } from "./agent-id.js";
import { assertAttachmentName, assertAttachmentText } from "./attachment-arguments.js";
import { assertSessionId } from "./session-id.js";
import { assertRunId, resolvePage } from "./store-arguments.js";
import { recordsToAppend } from "./message-ids.js";

const MODULE = "stores/memory";

/**
 * A HistoryStore in process memory: the fallback when storage cannot be used, and the store of
 * tests. Nothing survives the process.
 *
 * Messages are kept as their JSON text, exactly as the JSONL store writes them, so both stores
 * give identical results (undefined properties dropped, Dates as strings, Unicode exact) and every
 * read is a fresh copy by construction. Every method completes synchronously inside its promise,
 * so calls take effect in call order without a queue. Sessions are kept per agent (a map of
 * agents, each a map of its sessions): one agent's calls never see another's. Attachments
 * (SessionAttachments) sit in a map of their own, so writing one lists no session. Appends are
 * idempotent by message id (message-ids.ts): each session keeps the set of the ids it holds.
 */
export class MemoryStore implements HistoryStore, SessionAttachments {
  readonly kind = "memory";
  /** agent id → session id → session. */
  private readonly agents = new Map<string, Map<string, MemorySession>>();
  /** agentSessionKey(agent, session) → attachment name → text. */
  private readonly attachments = new Map<string, Map<string, string>>();
  private closed = false;

  async open(sessionId: string, scope?: HistoryScope): Promise<OpenedSession> {
    const session = this.session(sessionId, scope, true);
    return { messages: session.records.map((json, i) => parse(json, sessionId, i)) };
  }

  async append(sessionId: string, message: Message, scope?: HistoryScope): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    agentIdOf(scope, MODULE);
    const encoded = encodeMessage(message, "message", MODULE);
    append(this.session(id, scope, true), [encoded]);
  }

  async appendMany(sessionId: string, messages: Message[], scope?: HistoryScope): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    agentIdOf(scope, MODULE);
    const encoded = encodeMessages(messages, "messages", MODULE);
    if (encoded.length > 0) append(this.session(id, scope, true), encoded);
  }

  async read(sessionId: string, options?: ReadOptions): Promise<Message[]> {
    const session = this.session(sessionId, options, false);
    const { start, end } = resolvePage(options, session?.records.length ?? 0, MODULE);
    return session ? session.records.slice(start, end).map((json, i) => parse(json, sessionId, start + i)) : [];
  }

  async count(sessionId: string, scope?: HistoryScope): Promise<number> {
    return this.session(sessionId, scope, false)?.records.length ?? 0;
  }

  async replace(sessionId: string, messages: Message[], scope?: HistoryScope): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    agentIdOf(scope, MODULE);
    const encoded = encodeMessages(messages, "messages", MODULE);
    const session = this.session(id, scope, true);
    empty(session);
    push(session, encoded.map(stored));
  }

  async clear(sessionId: string, scope?: HistoryScope): Promise<void> {
    await this.replace(sessionId, [], scope);
  }

  async clearRun(sessionId: string, runId: string, scope?: HistoryScope): Promise<void> {
    this.live();
    assertSessionId(sessionId, MODULE);
    assertRunId(runId, MODULE);
    const session = this.session(sessionId, scope, false);
    if (!session || !session.runIds.includes(runId)) return;
    const kept: StoredRecord[] = [];
    session.records.forEach((json, i) => {
      if (session.runIds[i] !== runId) kept.push({ json, runId: session.runIds[i], id: session.idAt[i] });
    });
    empty(session);
    push(session, kept);
  }

  async listSessions(scope?: HistoryScope): Promise<SessionSummary[]> {
    this.live();
    const sessions = this.agents.get(agentIdOf(scope, MODULE)) ?? new Map<string, MemorySession>();
    const sorted = [...sessions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return sorted.map(([sessionId, s]) => ({
      sessionId,
      count: s.records.length,
      bytes: s.bytes,
      updatedAt: s.updatedAt.toISOString(),
    }));
  }

  async deleteSession(sessionId: string, scope?: HistoryScope): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const agent = agentIdOf(scope, MODULE);
    const sessions = this.agents.get(agent);
    sessions?.delete(id);
    if (sessions?.size === 0) this.agents.delete(agent);
    this.attachments.delete(agentSessionKey(agent, id));
  }

  async readAttachment(sessionId: string, name: string, scope?: HistoryScope): Promise<string | undefined> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const key = agentSessionKey(agentIdOf(scope, MODULE), id);
    assertAttachmentName(name, MODULE);
    return this.attachments.get(key)?.get(name);
  }

  async writeAttachment(sessionId: string, name: string, text: string, scope?: HistoryScope): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const key = agentSessionKey(agentIdOf(scope, MODULE), id);
    assertAttachmentName(name, MODULE);
    assertAttachmentText(text, MODULE);
    let documents = this.attachments.get(key);
    if (!documents) this.attachments.set(key, (documents = new Map()));
    documents.set(name, text);
  }

  /** Memory has nothing to release per session (and letting go would lose the history). */
  async closeSession(sessionId: string, scope?: HistoryScope): Promise<void> {
    this.live();
    assertSessionId(sessionId, MODULE);
    agentIdOf(scope, MODULE);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.agents.clear();
    this.attachments.clear();
  }

  private live(): void {
    if (this.closed) throw createError("STORE_CLOSED", undefined, { module: MODULE });
  }

  private session(sessionId: string, scope: HistoryScope | undefined, create: true): MemorySession;
  private session(sessionId: string, scope: HistoryScope | undefined, create: false): MemorySession | undefined;
  private session(sessionId: string, scope: HistoryScope | undefined, create: boolean): MemorySession | undefined {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const agent = agentIdOf(scope, MODULE);
    let sessions = this.agents.get(agent);
    if (!sessions) {
      if (!create) return undefined;
      sessions = new Map();
      this.agents.set(agent, sessions);
    }
    let session = sessions.get(id);
    if (!session && create) {
      session = { records: [], runIds: [], idAt: [], ids: new Set(), bytes: 0, updatedAt: new Date() };
      sessions.set(id, session);
    }
    return session;
  }
}

interface MemorySession {
  records: string[];
  runIds: (string | undefined)[];
  /** Each record's message id (so clearRun can rebuild `ids`). */
  idAt: (string | undefined)[];
  /** The message ids the session holds: an append of one of them is a no-op. */
  ids: Set<string>;
  /** UTF-8 bytes of the records plus one separator each, as the JSONL file would hold them. */
  bytes: number;
  updatedAt: Date;
}

/** What this store keeps of an encoded message. */
type StoredRecord = Pick<EncodedMessage, "json" | "runId"> & { id: string | undefined };

/** An append: the records whose ids the session does not hold yet (message-ids.ts). */
function append(session: MemorySession, encoded: EncodedMessage[]): void {
  push(session, recordsToAppend(encoded, (id) => session.ids.has(id)).map(stored));
}

const stored = (e: EncodedMessage): StoredRecord => ({ json: e.json, runId: e.runId, id: e.facts.id });

/** Stores the records as given (replace keeps a list exactly, repeated ids included). */
function push(session: MemorySession, records: readonly StoredRecord[]): void {
  for (const { json, runId, id } of records) {
    session.records.push(json);
    session.runIds.push(runId);
    session.idAt.push(id);
    if (id !== undefined && id !== "") session.ids.add(id);
    session.bytes += Buffer.byteLength(json) + 1;
  }
  session.updatedAt = new Date();
}

function empty(session: MemorySession): void {
  session.records = [];
  session.runIds = [];
  session.idAt = [];
  session.ids = new Set();
  session.bytes = 0;
}

/** Records were checked when written; checking again on the way out keeps one rule for every store. */
function parse(json: string, sessionId: string, index: number): Message {
  return decodeStoredText(json, sessionId, index, MODULE);
}
