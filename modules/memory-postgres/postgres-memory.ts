import type pg from "pg";
import {
  checkCreateOptions,
  checkEventTypes,
  checkMaxAgeHours,
  checkMaxEvents,
  checkMemoryEvent,
  checkMemorySessionId,
  checkRecentOptions,
  checkUserFilter,
  CONVERSATION_SPEAKERS,
  createError,
  createMemoryEvent,
  formatConversation,
  isAmplifierError,
  memoryErrors,
  memoryOptions,
  memoryPostgresConfigSchema,
  memoryStats,
  sessionsToEvict,
  type ConversationContextOptions,
  type CreateMemorySessionOptions,
  type GetOrCreateSessionOptions,
  type GetSessionEventsOptions,
  type Memory,
  type MemoryEvent,
  type MemoryEventContent,
  type MemoryEventType,
  type MemoryPostgresOptions,
  type MemorySession,
  type MemoryStats,
  type RecentEventsOptions,
  type RecentMemoryEvent,
} from "@amplifier-ts/contracts";
import { closePool, connectionUrl, createPool, DEFAULT_PG_URL, redactUrl, withTransaction } from "@amplifier-ts/pg-kit";

const MODULE = "memory-postgres";
export const DEFAULT_MEMORY_PG_URL = DEFAULT_PG_URL;

interface SessionRow {
  session_id: string;
  app_name: string;
  user_id: string;
  created_at: Date;
  updated_at: Date;
}
interface EventRow {
  event_id: string;
  ts: Date;
  event_type: string;
  content: unknown;
  metadata: Record<string, unknown>;
}

/**
 * Memory in PostgreSQL: every process on the same url and schema sees one memory (replicas of an
 * agent share it), with the limits of memory-local.
 *
 * | concern | how |
 * |---|---|
 * | tables | `<schema>.memory_sessions` (one row per session; `ord` keeps creation order) and `<schema>.memory_events` (session, seq), created on first use under an advisory lock |
 * | addEvent | one transaction: bump the session's `next_seq` (its row lock orders writers of all processes), insert the event at that seq, delete the events more than maxEventsPerSession back — dense, gap-free order per session |
 * | getRecentEvents | every event row gets `gseq` (a bigserial: the order the server stored events, across processes); one query walks the index on it backwards, newest first, LIMIT n |
 * | maxSessions | creating a session takes a schema-wide advisory lock, so the oldest 10 % are evicted once however many processes create at the same time |
 * | failures | the server cannot be reached: reads STORAGE_UNAVAILABLE, writes STORAGE_WRITE_FAILED, naming the server (password hidden) |
 */
export class PostgresMemory implements Memory {
  readonly kind = "postgres";
  readonly contextLimit: number;
  readonly maxSessions: number;
  readonly maxEventsPerSession: number;
  readonly url: string;
  readonly schema: string;
  private readonly poolSize: number;
  private pool: Promise<pg.Pool> | undefined;
  private ready: Promise<void> | undefined;
  private closed = false;

  constructor(options: MemoryPostgresOptions = {}) {
    const resolved = memoryOptions(memoryPostgresConfigSchema, options, MODULE);
    this.contextLimit = resolved.contextLimit;
    this.maxSessions = resolved.maxSessions;
    this.maxEventsPerSession = resolved.maxEventsPerSession;
    this.url = connectionUrl(resolved.url, { module: MODULE, path: "AMPLIFIER_PG_URL" });
    this.schema = resolved.schema ?? "public";
    this.poolSize = resolved.poolSize ?? 10;
  }

  async createSession(options: CreateMemorySessionOptions): Promise<string> {
    this.live();
    const { appName, userId, sessionId } = checkCreateOptions(options, MODULE, "createSession");
    const created = await this.insertSession(appName, userId, sessionId);
    if (!created) throw memoryErrors.create("SESSION_EXISTS", `session "${sessionId}" already exists`, { module: MODULE, path: "createSession.sessionId", given: sessionId, hint: "use getOrCreateSession to reuse it" });
    return sessionId;
  }

  async getOrCreateSession(options: GetOrCreateSessionOptions): Promise<string> {
    this.live();
    const { appName, userId, sessionId } = checkCreateOptions(options, MODULE, "getOrCreateSession", true);
    const { rows } = await this.query("read", `SELECT 1 FROM ${this.t("memory_sessions")} WHERE session_id = $1`, [sessionId]);
    if (rows.length === 0) await this.insertSession(appName, userId, sessionId);
    return sessionId;
  }

  async getSession(sessionId: string): Promise<MemorySession | undefined> {
    this.live();
    const id = checkMemorySessionId(sessionId, MODULE);
    const { rows } = await this.query<SessionRow>("read", `SELECT session_id, app_name, user_id, created_at, updated_at FROM ${this.t("memory_sessions")} WHERE session_id = $1`, [id]);
    const row = rows[0];
    if (!row) return undefined;
    return { sessionId: row.session_id, appName: row.app_name, userId: row.user_id, createdAt: row.created_at, updatedAt: row.updated_at, events: await this.events(id, undefined) };
  }

  async listSessions(options?: { userId?: string }): Promise<string[]> {
    this.live();
    const userId = checkUserFilter(options, MODULE);
    const { rows } = await this.query<{ session_id: string }>(
      "read",
      `SELECT session_id FROM ${this.t("memory_sessions")} WHERE $1::text IS NULL OR user_id = $1 ORDER BY ord`,
      [userId ?? null],
    );
    return rows.map((r) => r.session_id);
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    this.live();
    const id = checkMemorySessionId(sessionId, MODULE);
    const { rowCount } = await this.query("write", `DELETE FROM ${this.t("memory_sessions")} WHERE session_id = $1`, [id]);
    return (rowCount ?? 0) > 0;
  }

  createEvent<T extends MemoryEventType>(eventType: T, content: MemoryEventContent<T>, metadata?: Record<string, unknown>): MemoryEvent<T> {
    return createMemoryEvent(eventType, content, metadata);
  }

  async addEvent(sessionId: string, event: MemoryEvent): Promise<boolean> {
    this.live();
    const id = checkMemorySessionId(sessionId, MODULE);
    checkMemoryEvent(event, "event");
    return this.transaction("write", async (client) => {
      const { rows } = await client.query<{ seq: string }>(
        `UPDATE ${this.t("memory_sessions")} SET next_seq = next_seq + 1, updated_at = clock_timestamp() WHERE session_id = $1 RETURNING next_seq - 1 AS seq`,
        [id],
      );
      const seq = rows[0]?.seq;
      if (seq === undefined) return false;
      await client.query(
        `INSERT INTO ${this.t("memory_events")} (session_id, seq, event_id, ts, event_type, content, metadata) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb)`,
        [id, seq, event.eventId, event.timestamp, event.eventType, JSON.stringify(event.content), JSON.stringify(event.metadata)],
      );
      await client.query(`DELETE FROM ${this.t("memory_events")} WHERE session_id = $1 AND seq <= $2::bigint - $3::bigint`, [id, seq, this.maxEventsPerSession]);
      return true;
    });
  }

  async getSessionEvents(sessionId: string, options?: GetSessionEventsOptions): Promise<MemoryEvent[]> {
    this.live();
    const id = checkMemorySessionId(sessionId, MODULE);
    const types = checkEventTypes(options, MODULE);
    return this.events(id, types === undefined ? undefined : [...types]);
  }

  async buildConversationContext(sessionId: string, options: ConversationContextOptions): Promise<string> {
    this.live();
    const id = checkMemorySessionId(sessionId, MODULE);
    const maxEvents = checkMaxEvents(options, MODULE);
    if (maxEvents === 0) return "";
    const { rows } = await this.query<EventRow>(
      "read",
      `SELECT event_id, ts, event_type, content, metadata FROM ${this.t("memory_events")} WHERE session_id = $1 AND event_type = ANY($2::text[]) ORDER BY seq DESC LIMIT $3`,
      [id, Object.keys(CONVERSATION_SPEAKERS), maxEvents],
    );
    return formatConversation(rows.reverse().map(toEvent), maxEvents);
  }

  async cleanupOldSessions(options: { maxAgeHours: number }): Promise<number> {
    this.live();
    const cutoff = checkMaxAgeHours(options, MODULE);
    const { rowCount } = await this.query("write", `DELETE FROM ${this.t("memory_sessions")} WHERE updated_at <= $1`, [cutoff]);
    return rowCount ?? 0;
  }

  async getMemoryStats(): Promise<MemoryStats> {
    this.live();
    const { rows } = await this.query<{ s: string; e: string }>("read", `SELECT (SELECT count(*) FROM ${this.t("memory_sessions")}) AS s, (SELECT count(*) FROM ${this.t("memory_events")}) AS e`, []);
    return memoryStats(Number(rows[0]?.s ?? 0), Number(rows[0]?.e ?? 0));
  }

  async getRecentEvents(options: RecentEventsOptions): Promise<RecentMemoryEvent[]> {
    this.live();
    const { limit, types } = checkRecentOptions(options, MODULE);
    if (limit === 0 || types?.size === 0) return [];
    const { rows } = await this.query<EventRow & { session_id: string }>(
      "read",
      `SELECT session_id, event_id, ts, event_type, content, metadata FROM ${this.t("memory_events")} WHERE $2::text[] IS NULL OR event_type = ANY($2::text[]) ORDER BY gseq DESC LIMIT $1`,
      [limit, types === undefined ? null : [...types]],
    );
    return rows.reverse().map((row) => ({ sessionId: row.session_id, event: toEvent(row) }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await closePool(await this.pool?.catch(() => undefined));
  }

  // ---- private helpers ----

  private t(table: "memory_sessions" | "memory_events"): string {
    return `"${this.schema}".${table}`;
  }

  private async events(id: string, types: string[] | undefined): Promise<MemoryEvent[]> {
    const { rows } = await this.query<EventRow>(
      "read",
      `SELECT event_id, ts, event_type, content, metadata FROM ${this.t("memory_events")} WHERE session_id = $1 AND ($2::text[] IS NULL OR event_type = ANY($2::text[])) ORDER BY seq`,
      [id, types ?? null],
    );
    return rows.map(toEvent);
  }

  /** Under the schema-wide lock: evict the oldest 10 % when full, then insert. false when the id exists. */
  private insertSession(appName: string, userId: string, sessionId: string): Promise<boolean> {
    return this.transaction("write", async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`amplifier-memory:${this.schema}`]);
      const { rows: found } = await client.query(`SELECT 1 FROM ${this.t("memory_sessions")} WHERE session_id = $1`, [sessionId]);
      if (found.length > 0) return false;
      const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${this.t("memory_sessions")}`);
      if (Number(rows[0]?.n ?? 0) >= this.maxSessions) {
        await client.query(
          `DELETE FROM ${this.t("memory_sessions")} WHERE session_id IN (SELECT session_id FROM ${this.t("memory_sessions")} ORDER BY ord LIMIT $1)`,
          [sessionsToEvict(this.maxSessions)],
        );
      }
      await client.query(`INSERT INTO ${this.t("memory_sessions")} (session_id, app_name, user_id) VALUES ($1, $2, $3)`, [sessionId, appName, userId]);
      return true;
    });
  }

  private async connect(): Promise<pg.Pool> {
    this.pool ??= createPool(this.url, { max: this.poolSize });
    const pool = await this.pool;
    this.ready ??= this.migrate(pool).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    await this.ready;
    return pool;
  }

  private migrate(pool: pg.Pool): Promise<void> {
    return withTransaction(pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext('amplifier-memory-migrate'))");
      // Done before (its last step, the gseq index, exists): no DDL at all — DDL on tables other
      // processes are writing to takes locks that can deadlock with their addEvent transactions.
      const { rows } = await client.query<{ done: string | null }>("SELECT to_regclass($1) AS done", [`"${this.schema}".memory_events_gseq`]);
      if (rows[0]?.done) return;
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.t("memory_sessions")} (
        session_id text PRIMARY KEY, app_name text NOT NULL, user_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(), updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        next_seq bigint NOT NULL DEFAULT 0, ord bigserial)`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.t("memory_events")} (
        session_id text NOT NULL REFERENCES ${this.t("memory_sessions")} ON DELETE CASCADE, seq bigint NOT NULL,
        event_id text NOT NULL, ts timestamptz NOT NULL, event_type text NOT NULL, content jsonb NOT NULL, metadata jsonb NOT NULL,
        gseq bigserial, PRIMARY KEY (session_id, seq))`);
      // Tables made before getRecentEvents existed get the column (existing rows numbered in table order).
      await client.query(`ALTER TABLE ${this.t("memory_events")} ADD COLUMN IF NOT EXISTS gseq bigserial`);
      await client.query(`CREATE INDEX IF NOT EXISTS memory_sessions_ord ON ${this.t("memory_sessions")} (ord)`);
      await client.query(`CREATE INDEX IF NOT EXISTS memory_events_gseq ON ${this.t("memory_events")} (gseq)`);
    });
  }

  private async query<R extends pg.QueryResultRow = pg.QueryResultRow>(kind: "read" | "write", sql: string, params: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await (await this.connect()).query<R>(sql, params);
    } catch (error) {
      throw this.failure(kind, error);
    }
  }

  private async transaction<T>(kind: "read" | "write", body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    try {
      return await withTransaction(await this.connect(), body);
    } catch (error) {
      throw this.failure(kind, error);
    }
  }

  private failure(kind: "read" | "write", cause: unknown) {
    if (isAmplifierError(cause)) return cause;
    const message = cause instanceof Error ? cause.message : String(cause);
    const details = { module: MODULE, url: redactUrl(this.url), cause, hint: "check that the server runs, the url (config url or AMPLIFIER_PG_URL) and the user's rights on the schema" };
    return kind === "write" ? createError("STORAGE_WRITE_FAILED", `PostgreSQL at ${redactUrl(this.url)}: ${message}`, details) : createError("STORAGE_UNAVAILABLE", `PostgreSQL at ${redactUrl(this.url)}: ${message}`, details);
  }

  private live(): void {
    if (this.closed) throw memoryErrors.create("CLOSED", undefined, { module: MODULE });
  }
}

function toEvent(row: EventRow): MemoryEvent {
  return { eventId: row.event_id, timestamp: row.ts, eventType: row.event_type, content: row.content, metadata: row.metadata };
}
