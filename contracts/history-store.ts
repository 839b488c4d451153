import type { Message } from "./generated/message.js";

/** One session's summary as listed by a store. */
export interface SessionSummary {
  sessionId: string;
  count: number;
  /** Bytes of stored JSON, where the store can tell cheaply. */
  bytes?: number;
  updatedAt?: string;
}

export interface ReadOptions {
  /** Skip this many messages from the start (stored order). */
  offset?: number;
  /** Return at most this many. */
  limit?: number;
}

/**
 * Where a persistent context manager keeps its history. One instance serves many sessions.
 * Messages come back in the order they were appended. Implementations: memory, JSONL (this repo),
 * PostgreSQL and Redis (scale-out). Conformance: `describeHistoryStoreContract` in amplifier-ts/testing.
 */
export interface HistoryStore {
  readonly kind: string;
  /** Durable when the promise resolves (as durable as the store's configuration promises). */
  append(sessionId: string, message: Message): Promise<void>;
  appendMany(sessionId: string, messages: Message[]): Promise<void>;
  read(sessionId: string, options?: ReadOptions): Promise<Message[]>;
  count(sessionId: string): Promise<number>;
  /** Replace a session's whole history atomically (setMessages). */
  replace(sessionId: string, messages: Message[]): Promise<void>;
  clear(sessionId: string): Promise<void>;
  clearRun(sessionId: string, runId: string): Promise<void>;
  listSessions(): Promise<SessionSummary[]>;
  deleteSession(sessionId: string): Promise<void>;
  close(): Promise<void>;
}
