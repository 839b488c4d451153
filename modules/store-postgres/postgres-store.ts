import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { HistoryScope, HistoryStore, OpenedSession, ReadOptions, SessionAttachments, SessionSummary } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { PostgresStoreOptions } from "./postgres-store-options.js";
import { createError, isAmplifierError, type AmplifierError } from "@amplifier-ts/contracts";
import { decodeStored, encodeFacts, encodeMessage, encodeMessages, type EncodedMessage } from "@amplifier-ts/stores";
import { acquirePool, answeredByServer, connectionUrl, DEFAULT_RETRY, isTransient, onCheckedOutClient, redactUrl, uncertainWrite, withRetry, withTransaction, type PoolLease, type RetryPolicy } from "@amplifier-ts/pg-kit";
import { messageIdIndex, migrate, tableNames, type TableNames } from "./postgres-migrations.js";
import { resumeSession } from "./pg-resume.js";
import { agentIdOf, agentSessionKey, assertSessionId } from "@amplifier-ts/stores";
import { assertAttachmentName, assertAttachmentText, assertRunId, resolvePage } from "@amplifier-ts/stores";
import { WriteQueue } from "@amplifier-ts/stores";

const MODULE = "stores/postgres";

export type { PostgresStoreOptions };

/** Rows per page of a read; pages are also cut at PAGE_BYTES of JSON (at least one row each). */
const PAGE_ROWS = 5_000;
const PAGE_BYTES = 32 * 1024 * 1024;
/** Pages requested ahead of the one being decoded. */
const PIPELINE = 2;
const MAX_BATCH_BYTES = 8 * 1024 * 1024;
/**
 * How long a store tries to reach the server the first time (each connection attempt, and the
 * retries of connect + migrations together) before STORAGE_UNAVAILABLE. Short, because an
 * unreachable server at open is usually a wrong url or a server that is not running, and
 * context-persistent decides on it (memory fallback, or failing with strict): the default retry
 * policy alone would take its ~5 s of backoff (8 tries, 50 ms → 2 s) to say so.
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 3_000;

/**
 * A HistoryStore in PostgreSQL, shared by any number of processes (postgres-migrations.ts holds
 * the tables). Semantics beyond the contract:
 *
 * | concern | how |
 * |---|---|
 * | sequence | an append is one statement: it bumps the session row's `count` (taking its row lock until commit) and inserts the rows numbered from the old count, so writers in many processes get dense seqs with no gap or duplicate |
 * | call order | operations on one session go through a per-session queue in this process (dropped when idle, so a long-lived process serving many sessions holds nothing for idle ones); appends that queue up while one is in flight are committed as one batch |
 * | open | lazy (pg-resume.ts): the facts of every row and the stored JSON of the newest rows now, the rest by a worker thread in the background, each message parsed when first read |
 * | reads | one REPEATABLE READ snapshot, fetched in pages by seq range (keyset) and decoded a page at a time |
 * | columns | `message jsonb` is the queryable record; `body` (the same JSON as text) and `facts` are written beside it for open() (postgres-migrations.ts, version 3) |
 * | replace, clearRun, clear, deleteSession | one transaction each; clearRun renumbers the kept rows |
 * | jsonb | cannot hold NUL (`\u0000`) or lone surrogates: such messages are refused with INVALID_MESSAGE |
 * | transient failures | retried with bounded backoff (`retry`); an append carries a write id so a retry after a lost acknowledgement never stores it twice |
 * | idempotent appends | `message_id` (migration 5) holds each row's `metadata.id` under a unique key per (agent, session); the append statement inserts only the messages whose id the session does not hold (and the first of an id repeated in the batch), numbering them densely. Two writers racing with one id: the second statement fails on the key (23505) and runs again, now finding the row — a no-op |
 * | unknown outcomes | an append whose statement was sent, or a transaction (replace, clearRun, deleteSession, attachments) whose COMMIT was sent, and whose connection was then lost (no reply, no SQLSTATE) may have committed: when the retries end without a reply that settles it → STORAGE_WRITE_UNCERTAIN (`details.messageIds` for appends); a retry is a no-op where it was stored. STORAGE_WRITE_FAILED only when no try was sent (no connection) or the server answered with an error |
 * | agents | `agent_id` is a column of both tables and leads their keys: a session is (agent_id, session_id); every statement names both |
 * | attachments | rows of `<table>_attachments` keyed (agent_id, session_id, name) (migration 4); a write is one upsert in the session's queue (call order with its messages), deleteSession deletes them in its statement |
 *
 * Failure policy: cannot connect or migrate (at open or first use) → STORAGE_UNAVAILABLE (context-
 * persistent falls back to memory unless strict); a write that still fails after the retries →
 * STORAGE_WRITE_FAILED (nothing stored) or STORAGE_WRITE_UNCERTAIN (see above); a read → STORAGE_UNAVAILABLE. Each names the server (password hidden).
 */
export class PostgresStore implements HistoryStore, SessionAttachments {
  readonly kind = "postgres";
  private readonly url: string;
  private readonly names: TableNames;
  private readonly retry: RetryPolicy;
  private readonly poolSize: number;
  private readonly connectTimeoutMs: number;
  private lease: Promise<PoolLease> | undefined;
  private ready: Promise<void> | undefined;
  /** Sessions (by agentSessionKey) with operations in flight; a queue is dropped when its last operation settles. */
  private readonly queues = new Map<string, { queue: WriteQueue<EncodedMessage>; pending: number }>();
  private closing: Promise<void> | undefined;
  /** Lazy opens still loading in the background (pg-resume.ts): close() waits for them, so every message it handed out stays readable. */
  private readonly loading = new Set<Promise<void>>();

  constructor(options: PostgresStoreOptions = {}) {
    // A url without a user connects as PGUSER or the OS user, as psql does.
    this.url = connectionUrl(options.url, { module: MODULE, path: "store.url", message: "A PostgreSQL store needs a postgres:// url" });
    this.names = tableNames(identifier(options.schema ?? "public", "schema", 63), identifier(options.table ?? "amplifier_messages", "table", 48));
    this.retry = retryPolicy(options.retry);
    this.poolSize = options.poolSize ?? 10;
    if (!Number.isSafeInteger(this.poolSize) || this.poolSize < 1) {
      throw createError("INVALID_ARGUMENT", "store.poolSize must be a positive integer", { module: MODULE, path: "store.poolSize", expected: "an integer ≥ 1", given: options.poolSize });
    }
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    if (!Number.isSafeInteger(this.connectTimeoutMs) || this.connectTimeoutMs < 1 || this.connectTimeoutMs > 2 ** 31 - 1) {
      throw createError("INVALID_ARGUMENT", "store.connectTimeoutMs must be a whole number of milliseconds", { module: MODULE, path: "store.connectTimeoutMs", expected: "an integer from 1 to 2147483647", given: options.connectTimeoutMs });
    }
  }

  async open(sessionId: string, scope?: HistoryScope): Promise<OpenedSession> {
    const id = this.check(sessionId);
    const agent = agentIdOf(scope, MODULE);
    return { messages: await this.run(agent, id, () => this.resume(agent, id)) };
  }

  async append(sessionId: string, message: Message, scope?: HistoryScope): Promise<void> {
    const id = this.check(sessionId);
    const agent = agentIdOf(scope, MODULE);
    const encoded = storable(encodeMessage(message, "message", MODULE), "message");
    await this.track(agent, id, (queue) => queue.append([encoded]));
  }

  async appendMany(sessionId: string, messages: Message[], scope?: HistoryScope): Promise<void> {
    const id = this.check(sessionId);
    const agent = agentIdOf(scope, MODULE);
    const encoded = encodeMessages(messages, "messages", MODULE).map((e, i) => storable(e, `messages[${i}]`));
    if (encoded.length === 0) return;
    await this.run(agent, id, () => this.insert(agent, id, encoded));
  }

  async read(sessionId: string, options?: ReadOptions): Promise<Message[]> {
    const id = this.check(sessionId);
    const { start, end } = resolvePage(options, Number.MAX_SAFE_INTEGER, MODULE);
    const agent = agentIdOf(options, MODULE);
    return this.run(agent, id, () => this.readRange(agent, id, start, end));
  }

  async count(sessionId: string, scope?: HistoryScope): Promise<number> {
    const id = this.check(sessionId);
    const agent = agentIdOf(scope, MODULE);
    return this.run(agent, id, () =>
      this.attempt("read", `count session ${id}`, async (pool) => {
        const { rows } = await pool.query<{ count: string }>(`SELECT count FROM ${this.names.sessions} WHERE agent_id = $2 AND session_id = $1`, [id, agent]);
        return Number(rows[0]?.count ?? 0);
      }),
    );
  }

  async replace(sessionId: string, messages: Message[], scope?: HistoryScope): Promise<void> {
    const id = this.check(sessionId);
    const agent = agentIdOf(scope, MODULE);
    const encoded = encodeMessages(messages, "messages", MODULE).map((e, i) => storable(e, `messages[${i}]`));
    await this.run(agent, id, () => this.rewrite(agent, id, encoded));
  }

  async clear(sessionId: string, scope?: HistoryScope): Promise<void> {
    await this.replace(sessionId, [], scope);
  }

  async clearRun(sessionId: string, runId: string, scope?: HistoryScope): Promise<void> {
    const id = this.check(sessionId);
    assertRunId(runId, MODULE);
    const agent = agentIdOf(scope, MODULE);
    await this.run(agent, id, () =>
      this.transaction(`clear run ${runId} of session ${id}`, async (client) => {
        const { rows: held } = await client.query(`SELECT 1 FROM ${this.names.sessions} WHERE agent_id = $2 AND session_id = $1 FOR UPDATE`, [id, agent]);
        if (held.length === 0) return;
        const { rows } = await client.query<{ n: string; b: string }>(
          `WITH gone AS (DELETE FROM ${this.names.messages} WHERE agent_id = $3 AND session_id = $1 AND run_id = $2 RETURNING bytes)
           SELECT count(*) AS n, coalesce(sum(bytes), 0) AS b FROM gone`,
          [id, runId, agent],
        );
        const removed = Number(rows[0]?.n ?? 0);
        if (removed === 0) return;
        // Renumber the kept rows to 0..n-1 in two passes through the negative numbers, so no
        // intermediate state ever collides with the primary key.
        await client.query(
          `UPDATE ${this.names.messages} m SET seq = -1 - r.rn
           FROM (SELECT seq, row_number() OVER (ORDER BY seq) - 1 AS rn FROM ${this.names.messages} WHERE agent_id = $2 AND session_id = $1) r
           WHERE m.agent_id = $2 AND m.session_id = $1 AND m.seq = r.seq`,
          [id, agent],
        );
        await client.query(`UPDATE ${this.names.messages} SET seq = -1 - seq WHERE agent_id = $2 AND session_id = $1`, [id, agent]);
        await client.query(`UPDATE ${this.names.sessions} SET count = count - $2, bytes = bytes - $3, updated_at = now() WHERE agent_id = $4 AND session_id = $1`, [id, removed, Number(rows[0]?.b ?? 0), agent]);
      }),
    );
  }

  async listSessions(scope?: HistoryScope): Promise<SessionSummary[]> {
    this.live();
    const agent = agentIdOf(scope, MODULE);
    await this.ensureReady();
    await this.settleAll();
    // One JSON text built by the server (ids in "C" order, times already ISO-8601 UTC): at 100k
    // sessions this is one string to parse instead of 100k rows and Dates to build.
    return this.attempt("read", "list sessions", async (pool) => {
      const { rows } = await pool.query<{ list: string | null }>(
        `SELECT json_agg(json_build_object(
           'sessionId', session_id, 'count', count, 'bytes', bytes,
           'updatedAt', to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY session_id)::text AS list
         FROM ${this.names.sessions} WHERE agent_id = $1 AND count > 0`,
        [agent],
      );
      return rows[0]?.list ? (JSON.parse(rows[0].list) as SessionSummary[]) : [];
    });
  }

  async deleteSession(sessionId: string, scope?: HistoryScope): Promise<void> {
    const id = this.check(sessionId);
    const agent = agentIdOf(scope, MODULE);
    await this.run(agent, id, () =>
      this.statement(
        `delete session ${id}`,
        `WITH s AS (DELETE FROM ${this.names.sessions} WHERE agent_id = $2 AND session_id = $1),
              a AS (DELETE FROM ${this.names.attachments} WHERE agent_id = $2 AND session_id = $1)
         DELETE FROM ${this.names.messages} WHERE agent_id = $2 AND session_id = $1`,
        [id, agent],
      ),
    );
  }

  async readAttachment(sessionId: string, name: string, scope?: HistoryScope): Promise<string | undefined> {
    const id = this.check(sessionId);
    const agent = agentIdOf(scope, MODULE);
    assertAttachmentName(name, MODULE);
    return this.run(agent, id, () =>
      this.attempt("read", `read attachment "${name}" of session ${id}`, async (pool) => {
        const { rows } = await pool.query<{ body: string }>(`SELECT body FROM ${this.names.attachments} WHERE agent_id = $2 AND session_id = $1 AND name = $3`, [id, agent, name]);
        return rows[0]?.body;
      }),
    );
  }

  /** One upsert (idempotent, so a retry after a lost acknowledgement is harmless). */
  async writeAttachment(sessionId: string, name: string, text: string, scope?: HistoryScope): Promise<void> {
    const id = this.check(sessionId);
    const agent = agentIdOf(scope, MODULE);
    assertAttachmentName(name, MODULE);
    assertAttachmentText(text, MODULE);
    await this.run(agent, id, () =>
      this.statement(
        `write attachment "${name}" of session ${id}`,
        `INSERT INTO ${this.names.attachments} (agent_id, session_id, name, body) VALUES ($2, $1, $3, $4)
         ON CONFLICT (agent_id, session_id, name) DO UPDATE SET body = EXCLUDED.body, updated_at = now()`,
        [id, agent, name, text],
      ),
    );
  }

  /** Nothing is held per session but its queue, which goes away by itself once idle: this waits for it to drain. */
  async closeSession(sessionId: string, scope?: HistoryScope): Promise<void> {
    const id = this.check(sessionId);
    const agent = agentIdOf(scope, MODULE);
    if (this.queues.has(agentSessionKey(agent, id))) await this.track(agent, id, (queue) => queue.run(async () => undefined)).catch(() => undefined);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.settleAll();
      this.queues.clear();
      await Promise.allSettled([...this.loading]);
      await this.ready?.catch(() => undefined);
      const lease = await this.lease?.catch(() => undefined);
      await lease?.release();
    })();
    return this.closing;
  }

  // ---- private helpers ----

  private check(sessionId: string): string {
    this.live();
    return assertSessionId(sessionId, MODULE);
  }

  private live(): void {
    if (this.closing) throw createError("STORE_CLOSED", undefined, { module: MODULE });
  }

  private async pool(): Promise<pg.Pool> {
    this.lease ??= acquirePool(this.url, this.poolSize, this.connectTimeoutMs);
    return (await this.lease).pool;
  }

  /** Runs the migrations once per store; a failure is reported and forgotten, so a later call tries again. */
  private ensureReady(): Promise<void> {
    this.ready ??= withRetry(
      this.retry,
      async () => {
        await migrate(await this.pool(), this.names);
      },
      Date.now() + this.connectTimeoutMs,
    ).catch((cause: unknown) => {
      this.ready = undefined;
      throw createError("STORAGE_UNAVAILABLE", `Cannot use PostgreSQL at ${redactUrl(this.url)}: ${describe(cause)}`, {
        module: MODULE,
        hint: `check that the server runs, the url (store.url or AMPLIFIER_PG_URL) and the user's rights on the schema; tried for up to ${this.connectTimeoutMs} ms (store.connectTimeoutMs)`,
        cause,
        url: redactUrl(this.url),
      });
    });
    return this.ready;
  }

  /** Runs `use` on the agent's session's queue (made on demand), counting it in flight until it settles. */
  private track<T>(agent: string, sessionId: string, use: (queue: WriteQueue<EncodedMessage>) => Promise<T>): Promise<T> {
    const key = agentSessionKey(agent, sessionId);
    let entry = this.queues.get(key);
    if (!entry) {
      const queue = new WriteQueue<EncodedMessage>({
        commit: async (records) => {
          await this.ensureReady();
          await this.insert(agent, sessionId, records);
        },
        coalesce: true,
        maxBatchWeight: MAX_BATCH_BYTES,
        weight: (record) => record.json.length,
      });
      entry = { queue, pending: 0 };
      this.queues.set(key, entry);
    }
    const held = entry;
    held.pending++;
    const settled = () => {
      if (--held.pending === 0 && this.queues.get(key) === held) this.queues.delete(key);
    };
    const result = use(held.queue);
    result.then(settled, settled);
    return result;
  }

  /** Every operation on a session runs in its queue, in call order, once the tables are ready. */
  private run<T>(agent: string, sessionId: string, task: () => Promise<T>): Promise<T> {
    return this.track(agent, sessionId, (queue) =>
      queue.run(async () => {
        await this.ensureReady();
        return task();
      }),
    );
  }

  private async settleAll(): Promise<void> {
    await Promise.allSettled([...this.queues.values()].map(({ queue }) => queue.run(async () => undefined)));
  }

  /**
   * One statement: the messages whose ids the session does not hold are numbered from the old
   * count (the session row's upsert holds its row lock until commit). The first row carries a
   * write id; a retry whose first try may have committed looks it up before writing again (the
   * message ids make it a no-op too; the write id covers messages without one). A try whose
   * statement was sent and got no answer may have committed: if no later try settles it, the
   * append is STORAGE_WRITE_UNCERTAIN, not FAILED.
   */
  private async insert(agent: string, sessionId: string, records: EncodedMessage[]): Promise<void> {
    const writeId = randomUUID();
    const params = insertParams(sessionId, records, writeId, agent, true);
    let sent = false;
    try {
      await this.attempt("write", `append to session ${sessionId}`, async (pool, attempt) => {
        if (attempt > 1) {
          const { rows } = await pool.query(`SELECT 1 FROM ${this.names.messages} WHERE agent_id = $3 AND session_id = $1 AND write_id = $2 LIMIT 1`, [sessionId, writeId, agent]);
          if (rows.length > 0) return;
        }
        await onCheckedOutClient(
          pool,
          async (client) => {
            for (let race = 1; ; race++) {
              try {
                await client.query(insertSql(this.names), params);
                return;
              } catch (error) {
                // Another writer committed one of these ids after this statement's snapshot: run it again (it now sees the row).
                if (race < 3 && isMessageIdConflict(error, this.names)) continue;
                throw error;
              }
            }
          },
          (error) => {
            if (!answeredByServer(error)) sent = true;
          },
        );
      });
    } catch (error) {
      throw sent ? this.uncertain(error, records.flatMap((r) => (r.facts.id ? [r.facts.id] : []))) : error;
    }
  }

  /** One idempotent write statement (autocommit), retried; UNCERTAIN when a try was sent and its answer lost. */
  private async statement(action: string, sql: string, params: unknown[]): Promise<void> {
    let sent = false;
    try {
      await this.attempt("write", action, (pool) =>
        onCheckedOutClient(
          pool,
          async (client) => {
            await client.query(sql, params);
          },
          (error) => {
            if (!answeredByServer(error)) sent = true;
          },
        ),
      );
    } catch (error) {
      throw sent ? this.uncertain(error, []) : error;
    }
  }

  /** A write's final FAILED becomes UNCERTAIN when one of its tries may have committed (its answer was lost). */
  private uncertain(error: unknown, messageIds: string[]): unknown {
    return uncertainWrite(error, { module: MODULE, url: this.url, messageIds });
  }

  private rewrite(agent: string, sessionId: string, records: EncodedMessage[]): Promise<void> {
    return this.transaction(`replace session ${sessionId}`, async (client) => {
      await client.query(
        `INSERT INTO ${this.names.sessions} AS s (agent_id, session_id) VALUES ($2, $1)
         ON CONFLICT (agent_id, session_id) DO UPDATE SET count = 0, bytes = 0, updated_at = now()`,
        [sessionId, agent],
      );
      await client.query(`DELETE FROM ${this.names.messages} WHERE agent_id = $2 AND session_id = $1`, [sessionId, agent]);
      if (records.length === 0) return;
      await client.query(insertSql(this.names), insertParams(sessionId, records, null, agent, false));
    });
  }

  /** The whole session, lazily (pg-resume.ts); the snapshot's transaction ends in the background. */
  private resume(agent: string, sessionId: string): Promise<Message[]> {
    return this.attempt("read", `read session ${sessionId}`, async (pool) => {
      const client = await pool.connect();
      let opened;
      try {
        opened = await resumeSession(client, { names: this.names, url: this.url, agent, sessionId, where: `session "${sessionId}" in PostgreSQL at ${redactUrl(this.url)}`, module: MODULE });
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        client.release(error instanceof Error && isTransient(error) ? error : undefined);
        throw error;
      }
      const settled = opened.settled;
      this.loading.add(settled);
      void settled.finally(() => this.loading.delete(settled));
      return opened.messages;
    });
  }

  /**
   * Messages with seq in [start, end), from one snapshot: one query cuts the range into pages of
   * at most PAGE_ROWS rows / PAGE_BYTES of JSON (from the `bytes` column, no message is read),
   * then the pages are fetched over the same connection, PIPELINE pages ahead, so the server
   * renders the next page while this process decodes the current one.
   */
  private readRange(agent: string, sessionId: string, start: number, end: number): Promise<Message[]> {
    return this.transaction(
      `read session ${sessionId}`,
      async (client) => {
        const { rows: pages } = await client.query<{ first: string; last: string }>(boundsSql(this.names), [sessionId, start, end, PAGE_BYTES, PAGE_ROWS, agent]);
        const fetchPage = (i: number) => {
          const page = pages[i]!;
          const pending = client.query<{ page: string | null }>(pageSql(this.names), [sessionId, page.first, page.last, agent]);
          pending.catch(() => undefined); // awaited below, in order; this only silences the ones never reached
          return pending;
        };
        const inFlight = pages.slice(0, PIPELINE).map((_, i) => fetchPage(i));
        const out: Message[] = [];
        for (let i = 0; i < pages.length; i++) {
          const { rows } = await inFlight[i]!;
          if (i + PIPELINE < pages.length) inFlight.push(fetchPage(i + PIPELINE));
          const text = rows[0]?.page;
          // Rows can be written by others (an older version, a SQL client): each is checked on the way out.
          if (text) for (const message of JSON.parse(`[${text}]`) as unknown[]) out.push(decodeStored(message, sessionId, start + out.length, MODULE));
        }
        return out;
      },
      "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
      "read",
    );
  }

  /**
   * One transaction, retried whole on transient failures (every write transaction here is
   * idempotent). A COMMIT sent whose answer was lost may have committed: if no later try succeeds,
   * the write is STORAGE_WRITE_UNCERTAIN; a failure before COMMIT rolled everything back (FAILED).
   */
  private async transaction<T>(action: string, body: (client: pg.PoolClient) => Promise<T>, begin = "BEGIN", kind: "read" | "write" = "write"): Promise<T> {
    let commitLost = false;
    const onCommitLost = kind === "write" ? () => void (commitLost = true) : undefined;
    try {
      return await this.attempt(kind, action, (pool) => withTransaction(pool, body, { begin, onCommitLost }));
    } catch (error) {
      throw commitLost ? this.uncertain(error, []) : error;
    }
  }

  private async attempt<T>(kind: "read" | "write", action: string, task: (pool: pg.Pool, attempt: number) => Promise<T>): Promise<T> {
    try {
      return await withRetry(this.retry, async (attempt) => task(await this.pool(), attempt));
    } catch (cause) {
      throw this.failure(kind, action, cause);
    }
  }

  private failure(kind: "read" | "write", action: string, cause: unknown): AmplifierError {
    if (isAmplifierError(cause)) return cause;
    const sqlstate = (cause as { code?: unknown } | null)?.code;
    if (sqlstate === "22P05" || sqlstate === "22P02" || sqlstate === "22021") {
      return createError("INVALID_MESSAGE", `PostgreSQL refused the message: ${describe(cause)}`, { module: MODULE, expected: "text jsonb can hold (no NUL, no lone surrogates)", cause });
    }
    const transient = isTransient(cause);
    const details = {
      module: MODULE,
      hint: transient ? `the server stayed unreachable through ${this.retry.attempts} tries; check that it runs (store.retry sets the backoff)` : "see the cause for PostgreSQL's error",
      cause,
      url: redactUrl(this.url),
      sqlstate: typeof sqlstate === "string" ? sqlstate : undefined,
    };
    return kind === "write"
      ? createError("STORAGE_WRITE_FAILED", `Cannot ${action} in PostgreSQL: ${describe(cause)}`, details)
      : createError("STORAGE_UNAVAILABLE", `Cannot ${action} in PostgreSQL: ${describe(cause)}`, details);
  }
}

/**
 * Parameters: $1 session, $2 message ids (null: none; the empty id is none), $3 dedupe (append:
 * true — rows whose id the session holds, and repeats within the call, are left out; replace:
 * false — every row is kept, a repeated id's later rows get no message_id), $4 the messages' JSON
 * texts joined by line feeds (JSON.stringify never writes a raw one; one text, split by the
 * server: no per-element quoting of a text[] literal), $5 run ids, $6 bytes each, $7 write id,
 * $8 agent, $9 the messages' facts (compact JSON arrays) joined by line feeds. Each text is stored
 * as `body` and, parsed, as the `message` jsonb. The kept rows are numbered densely from the
 * session's old count; nothing kept → the session row is not touched.
 */
function insertSql(n: TableNames): string {
  return `WITH m AS (
    SELECT *, message_id IS NOT NULL AND row_number() OVER (PARTITION BY message_id ORDER BY ord) > 1 AS repeated
    FROM ROWS FROM (unnest(string_to_array($4, E'\\n')), unnest(string_to_array($9, E'\\n')), unnest($5::text[]), unnest($6::int[]), unnest($2::text[]))
      WITH ORDINALITY AS r(body, facts, run_id, bytes, message_id, ord)),
  kept AS (
    SELECT body, facts, run_id, bytes, CASE WHEN repeated THEN NULL ELSE message_id END AS message_id, row_number() OVER (ORDER BY ord) AS k
    FROM m
    WHERE NOT $3::boolean OR (NOT repeated AND (message_id IS NULL OR NOT EXISTS (
      SELECT 1 FROM ${n.messages} x WHERE x.agent_id = $8 AND x.session_id = $1 AND x.message_id = m.message_id)))),
  total AS (SELECT count(*) AS c, coalesce(sum(bytes), 0) AS b FROM kept),
  s AS (
    INSERT INTO ${n.sessions} AS s (agent_id, session_id, count, bytes, updated_at) SELECT $8, $1, total.c, total.b, now() FROM total WHERE total.c > 0
    ON CONFLICT (agent_id, session_id) DO UPDATE SET count = s.count + EXCLUDED.count, bytes = s.bytes + EXCLUDED.bytes, updated_at = now()
    RETURNING count - (SELECT c FROM total) AS first)
  INSERT INTO ${n.messages} (agent_id, session_id, seq, message, body, facts, run_id, bytes, write_id, message_id)
  SELECT $8, $1, s.first + kept.k - 1, kept.body::jsonb, kept.body, kept.facts::jsonb, kept.run_id, kept.bytes, CASE WHEN kept.k = 1 THEN $7::text END, kept.message_id
  FROM s, kept`;
}

function insertParams(sessionId: string, records: readonly EncodedMessage[], writeId: string | null, agent: string, dedupe: boolean): unknown[] {
  const bytes = records.map((r) => Buffer.byteLength(r.json));
  const facts = records.map((r) => JSON.stringify(encodeFacts(r.facts)));
  const ids = records.map((r) => (r.facts.id ? r.facts.id : null));
  return [sessionId, ids, dedupe, records.map((r) => r.json).join("\n"), records.map((r) => r.runId ?? null), bytes, writeId, agent, facts.join("\n")];
}

/** A unique violation on the message-id key: another writer stored one of the ids meanwhile. */
function isMessageIdConflict(error: unknown, names: TableNames): boolean {
  const e = error as { code?: unknown; constraint?: unknown } | null;
  return e?.code === "23505" && e.constraint === messageIdIndex(names);
}

/** Page bounds [first, last] over a seq range: a new page where either the byte or the row budget runs out. */
function boundsSql(n: TableNames): string {
  return `SELECT min(seq) AS first, max(seq) AS last FROM (
    SELECT seq, (sum(bytes) OVER w - bytes) / $4::bigint AS b, (row_number() OVER w - 1) / $5::bigint AS r
    FROM ${n.messages} WHERE agent_id = $6 AND session_id = $1 AND seq >= $2 AND seq < $3 WINDOW w AS (ORDER BY seq)) x
  GROUP BY b, r ORDER BY first`;
}

/** One page as one JSON text (rows joined by commas): one value to decode per page, not per row. */
function pageSql(n: TableNames): string {
  return `SELECT string_agg(message::text, ',' ORDER BY seq) AS page FROM ${n.messages} WHERE agent_id = $4 AND session_id = $1 AND seq >= $2 AND seq <= $3`;
}

/**
 * jsonb cannot hold NUL or an unpaired surrogate. JSON.stringify writes both (and only those
 * among the escapes PostgreSQL rejects) as `\u0000` / `\udXXX` escapes — a well-formed pair is
 * written raw — so an escape preceded by an even number of backslashes finds them.
 */
const UNSTORABLE = /(?<!\\)(?:\\\\)*\\u(0000|d[89a-f][0-9a-f]{2})/i;

function storable(encoded: EncodedMessage, path: string): EncodedMessage {
  const found = UNSTORABLE.exec(encoded.json);
  if (!found) return encoded;
  const what = found[1] === "0000" ? "a NUL character (\\u0000)" : `a lone surrogate (\\u${found[1]})`;
  throw createError("INVALID_MESSAGE", `The store refused a message: PostgreSQL jsonb cannot hold ${what}`, {
    module: MODULE,
    path,
    expected: "strings without NUL and without unpaired surrogates (the message is refused, never altered)",
  });
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function identifier(value: unknown, name: string, max: number): string {
  if (typeof value === "string" && IDENTIFIER.test(value) && value.length <= max) return value;
  throw createError("INVALID_ARGUMENT", `store.${name} must be a plain SQL identifier`, {
    module: MODULE,
    path: `store.${name}`,
    expected: `1-${max} characters of [A-Za-z0-9_], not starting with a digit`,
    given: value,
  });
}

function retryPolicy(given: Partial<RetryPolicy> | undefined): RetryPolicy {
  const policy = { ...DEFAULT_RETRY, ...given };
  const ok =
    Number.isSafeInteger(policy.attempts) && policy.attempts >= 1 &&
    Number.isFinite(policy.baseDelayMs) && policy.baseDelayMs >= 0 &&
    Number.isFinite(policy.maxDelayMs) && policy.maxDelayMs >= policy.baseDelayMs;
  if (ok) return policy;
  throw createError("INVALID_ARGUMENT", "store.retry is not a usable backoff", {
    module: MODULE,
    path: "store.retry",
    expected: "{ attempts: integer ≥ 1, baseDelayMs ≥ 0, maxDelayMs ≥ baseDelayMs }",
    given,
  });
}

function describe(cause: unknown): string {
  const code = (cause as { code?: unknown } | null)?.code;
  const message = cause instanceof Error ? cause.message || cause.name : String(cause);
  return typeof code === "string" && !message.includes(code) ? `${code} ${message}` : message;
}
