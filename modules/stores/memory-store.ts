import type { HistoryStore, OpenedSession, ReadOptions, SessionSummary } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import { decodeStoredText, encodeMessage, encodeMessages, type EncodedMessage } from "./message-codec.js";
import { assertSessionId } from "./session-id.js";
import { assertRunId, resolvePage } from "./store-arguments.js";

const MODULE = "stores/memory";

/**
 * A HistoryStore in process memory: the fallback when storage cannot be used, and the store of
 * tests. Nothing survives the process.
 *
 * Messages are kept as their JSON text, exactly as the JSONL store writes them, so both stores
 * give identical results (undefined properties dropped, Dates as strings, Unicode exact) and every
 * read is a fresh copy by construction. Every method completes synchronously inside its promise,
 * so calls take effect in call order without a queue.
 */
export class MemoryStore implements HistoryStore {
  readonly kind = "memory";
  private readonly sessions = new Map<string, MemorySession>();
  private closed = false;

  async open(sessionId: string): Promise<OpenedSession> {
    const session = this.session(sessionId, true);
    return { messages: session.records.map((json, i) => parse(json, sessionId, i)) };
  }

  async append(sessionId: string, message: Message): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const encoded = encodeMessage(message, "message", MODULE);
    push(this.session(id, true), [encoded]);
  }

  async appendMany(sessionId: string, messages: Message[]): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const encoded = encodeMessages(messages, "messages", MODULE);
    if (encoded.length > 0) push(this.session(id, true), encoded);
  }

  async read(sessionId: string, options?: ReadOptions): Promise<Message[]> {
    const session = this.session(sessionId, false);
    const { start, end } = resolvePage(options, session?.records.length ?? 0, MODULE);
    return session ? session.records.slice(start, end).map((json, i) => parse(json, sessionId, start + i)) : [];
  }

  async count(sessionId: string): Promise<number> {
    return this.session(sessionId, false)?.records.length ?? 0;
  }

  async replace(sessionId: string, messages: Message[]): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const encoded = encodeMessages(messages, "messages", MODULE);
    const session = this.session(id, true);
    session.records = [];
    session.runIds = [];
    session.bytes = 0;
    push(session, encoded);
  }

  async clear(sessionId: string): Promise<void> {
    await this.replace(sessionId, []);
  }

  async clearRun(sessionId: string, runId: string): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    assertRunId(runId, MODULE);
    const session = this.sessions.get(id);
    if (!session || !session.runIds.includes(runId)) return;
    const kept: EncodedMessage[] = [];
    session.records.forEach((json, i) => {
      if (session.runIds[i] !== runId) kept.push({ json, runId: session.runIds[i] });
    });
    session.records = [];
    session.runIds = [];
    session.bytes = 0;
    push(session, kept);
  }

  async listSessions(): Promise<SessionSummary[]> {
    this.live();
    const sorted = [...this.sessions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return sorted.map(([sessionId, s]) => ({
      sessionId,
      count: s.records.length,
      bytes: s.bytes,
      updatedAt: s.updatedAt.toISOString(),
    }));
  }

  async deleteSession(sessionId: string): Promise<void> {
    this.live();
    this.sessions.delete(assertSessionId(sessionId, MODULE));
  }

  /** Memory has nothing to release per session (and letting go would lose the history). */
  async closeSession(sessionId: string): Promise<void> {
    this.live();
    assertSessionId(sessionId, MODULE);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.sessions.clear();
  }

  private live(): void {
    if (this.closed) throw createError("STORE_CLOSED", undefined, { module: MODULE });
  }

  private session(sessionId: string, create: true): MemorySession;
  private session(sessionId: string, create: false): MemorySession | undefined;
  private session(sessionId: string, create: boolean): MemorySession | undefined {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    let session = this.sessions.get(id);
    if (!session && create) {
      session = { records: [], runIds: [], bytes: 0, updatedAt: new Date() };
      this.sessions.set(id, session);
    }
    return session;
  }
}

interface MemorySession {
  records: string[];
  runIds: (string | undefined)[];
  /** UTF-8 bytes of the records plus one separator each, as the JSONL file would hold them. */
  bytes: number;
  updatedAt: Date;
}

function push(session: MemorySession, encoded: EncodedMessage[]): void {
  for (const { json, runId } of encoded) {
    session.records.push(json);
    session.runIds.push(runId);
    session.bytes += Buffer.byteLength(json) + 1;
  }
  session.updatedAt = new Date();
}

/** Records were checked when written; checking again on the way out keeps one rule for every store. */
function parse(json: string, sessionId: string, index: number): Message {
  return decodeStoredText(json, sessionId, index, MODULE);
}
