import type pg from "pg";
import { createError, isAmplifierError, type MemoryEvent, type MemorySession, type RecentMemoryEvent } from "@amplifier-ts/contracts";
import { CONVERSATION_SPEAKERS, MemoryBase, sessionsToEvict, type NewMemorySession } from "@amplifier-ts/memory-base";
import { closePool, connectionUrl, createPool, DEFAULT_PG_URL, redactUrl, withTransaction } from "@amplifier-ts/pg-kit";
import { memoryPostgresConfigSchema, type MemoryPostgresOptions } from "./memory-postgres-config.js";

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
export class PostgresMemory extends MemoryBase<MemoryPostgresOptions> {
  readonly kind = "postgres";
  readonly url: string;
  readonly schema: string;
  private readonly poolSize: number;
  private pool: Promise<pg.Pool> | undefined;
  private ready: Promise<void> | undefined;

  constructor(options: MemoryPostgresOptions = {}) {
    super(MODULE, memoryPostgresConfigSchema, options);
    this.url = connectionUrl(this.options.url, { module: MODULE, path: "AMPLIFIER_PG_URL" });
    this.schema = this.options.schema ?? "public";
    this.poolSize = this.options.poolSize ?? 10;
  }

  /** Under the schema-wide lock: evict the oldest 10 % when full, then insert. false when the id exists. */
  protected insertSession({ appName, userId, sessionId }: NewMemorySession): Promise<boolean> {
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

  /** A lookup first: an existing session is the common case, and it takes no lock. */
  protected override async ensureSession(session: NewMemorySession): Promise<void> {
    const { rows } = await this.query("read", `SELECT 1 FROM ${this.t("memory_sessions")} WHERE session_id = $1`, [session.sessionId]);
    if (rows.length === 0) await this.insertSession(session);
  }

  protected async readSession(id: string): Promise<MemorySession | undefined> {
    const { rows } = await this.query<SessionRow>("read", `SELECT session_id, app_name, user_id, created_at, updated_at FROM ${this.t("memory_sessions")} WHERE session_id = $1`, [id]);
    const row = rows[0];
    if (!row) return undefined;
    return { sessionId: row.session_id, appName: row.app_name, userId: row.user_id, createdAt: row.created_at, updatedAt: row.updated_at, events: await this.readEvents(id, undefined) };
  }

  protected async readSessionIds(userId: string | undefined): Promise<string[]> {
    const { rows } = await this.query<{ session_id: string }>(
      "read",
      `SELECT session_id FROM ${this.t("memory_sessions")} WHERE $1::text IS NULL OR user_id = $1 ORDER BY ord`,
      [userId ?? null],
    );
    return rows.map((r) => r.session_id);
  }

  protected async removeSession(id: string): Promise<boolean> {
    const { rowCount } = await this.query("write", `DELETE FROM ${this.t("memory_sessions")} WHERE session_id = $1`, [id]);
    return (rowCount ?? 0) > 0;
  }

  protected appendEvent(id: string, event: MemoryEvent): Promise<boolean> {
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

  protected async readEvents(id: string, types: ReadonlySet<string> | undefined): Promise<MemoryEvent[]> {
    const { rows } = await this.query<EventRow>(
      "read",
      `SELECT event_id, ts, event_type, content, metadata FROM ${this.t("memory_events")} WHERE session_id = $1 AND ($2::text[] IS NULL OR event_type = ANY($2::text[])) ORDER BY seq`,
      [id, types === undefined ? null : [...types]],
    );
    return rows.map(toEvent);
  }

  /** Only the newest `maxEvents` conversation events are read (LIMIT on the session's seq, newest first). */
  protected override async readConversation(id: string, maxEvents: number): Promise<MemoryEvent[]> {
    if (maxEvents === 0) return [];
    const { rows } = await this.query<EventRow>(
      "read",
      `SELECT event_id, ts, event_type, content, metadata FROM ${this.t("memory_events")} WHERE session_id = $1 AND event_type = ANY($2::text[]) ORDER BY seq DESC LIMIT $3`,
      [id, Object.keys(CONVERSATION_SPEAKERS), maxEvents],
    );
    return rows.reverse().map(toEvent);
  }

  protected async removeSessionsChangedBefore(cutoff: Date): Promise<number> {
    const { rowCount } = await this.query("write", `DELETE FROM ${this.t("memory_sessions")} WHERE date_trunc('milliseconds', updated_at) <= $1`, [cutoff]);
    return rowCount ?? 0;
  }

  protected async countSessionsAndEvents(): Promise<{ sessions: number; events: number }> {
    const { rows } = await this.query<{ s: string; e: string }>("read", `SELECT (SELECT count(*) FROM ${this.t("memory_sessions")}) AS s, (SELECT count(*) FROM ${this.t("memory_events")}) AS e`, []);
    return { sessions: Number(rows[0]?.s ?? 0), events: Number(rows[0]?.e ?? 0) };
  }

  /** One query down the index on gseq (the order the server stored events, across processes). */
  protected override async readRecentEvents(limit: number, types: ReadonlySet<string> | undefined): Promise<RecentMemoryEvent[]> {
    const { rows } = await this.query<EventRow & { session_id: string }>(
      "read",
      `SELECT session_id, event_id, ts, event_type, content, metadata FROM ${this.t("memory_events")} WHERE $2::text[] IS NULL OR event_type = ANY($2::text[]) ORDER BY gseq DESC LIMIT $1`,
      [limit, types === undefined ? null : [...types]],
    );
    return rows.reverse().map((row) => ({ sessionId: row.session_id, event: toEvent(row) }));
  }

  protected override async release(): Promise<void> {
    await closePool(await this.pool?.catch(() => undefined));
  }

  // ---- private helpers ----

  private t(table: "memory_sessions" | "memory_events"): string {
    return `"${this.schema}".${table}`;
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
}

function toEvent(row: EventRow): MemoryEvent {
  return { eventId: row.event_id, timestamp: row.ts, eventType: row.event_type, content: row.content, metadata: row.metadata };
}
