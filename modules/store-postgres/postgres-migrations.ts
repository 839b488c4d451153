import type pg from "pg";
import { DEFAULT_AGENT_ID } from "@amplifier-ts/contracts";

/**
 * The PostgreSQL store's schema, as numbered migrations. Each runs once per (schema, table),
 * recorded in `<table>_migrations`; all of them run in one transaction that holds a
 * transaction-level advisory lock named after the schema and table, so two processes that open
 * the store at the same moment take turns: the second finds the work done and applies nothing.
 *
 * Add a migration by appending to MIGRATIONS (never edit a released one).
 *
 * Tables (`t` = the configured table name), as of version 5:
 * | table | key | holds |
 * |---|---|---|
 * | `t` | (agent_id, session_id, seq); unique (agent_id, session_id, message_id) where message_id is set | one row per message: `message jsonb` (the queryable record), `body text` (the same message as the JSON text the store wrote, for resumes: no jsonb rendering), `facts jsonb` (what a window plans with: message-facts-codec.ts of @amplifier-ts/stores), `run_id`, `bytes`, `write_id` (first row of each append batch, for idempotent retries), `message_id` (the message's `metadata.id`: appends are idempotent by it), `created_at` |
 * | `t_sessions` | (agent_id, session_id) | `count` (seqs are dense, 0..count-1, so count is also the next seq), `bytes`, `updated_at`; its row lock serialises the writers of one session |
 * | `t_attachments` | (agent_id, session_id, name) | a session's attachments (SessionAttachments): `body text`, `updated_at`; deleted with the session |
 * | `t_migrations` | version | applied migrations |
 *
 * | version | what |
 * |---|---|
 * | 1 | the tables, keyed by session_id |
 * | 2 | agent scoping (HistoryStore contract v2): `agent_id text NOT NULL DEFAULT 'default'` on both tables — every existing row becomes the default agent's (a constant default: no table rewrite) — and the keys and indexes lead with agent_id. Writers of version 1 upsert ON CONFLICT (session_id), which no longer names a key: stop them before the upgrade |
 * | 3 | lazy resume (pg-resume.ts): nullable `body text` (lz4 where available) and `facts jsonb`, written with every row from now on. Existing rows keep NULL (no backfill: the facts need the message contract's logic, and a rewrite of every row would hold the migration lock for minutes) and load as before, parsed and checked at open. A trigger clears both when `message` is updated without `body` (a SQL edit), so the edited jsonb stays the record |
 * | 4 | session attachments: the `t_attachments` table (a new table: nothing existing is read or rewritten). Writers of version 3 keep working; their deleteSession leaves a deleted session's attachments behind (harmless: a reader tolerates stale ones, and the next session of that id overwrites them) |
 * | 5 | idempotent appends: nullable `message_id text`, filled from `message->'metadata'->>'id'` for the FIRST row (lowest seq) of each id in its session — existing data that repeats an id keeps every row, the later copies with NULL (so the migration never fails on them, and nothing is deleted) — then the unique index `<t>_message_id_idx` on (agent_id, session_id, message_id) WHERE message_id IS NOT NULL. One UPDATE over the rows that have an id (a table rewrite of those rows, under the migrations' lock). Writers of version 4 keep working (they leave message_id NULL: their rows are not recognised by a retry) |
 */
export interface TableNames {
  /** Quoted, schema-qualified names ready for SQL. */
  messages: string;
  sessions: string;
  attachments: string;
  migrations: string;
  schema: string;
  /** Unquoted, for index names and the lock key. */
  table: string;
  rawSchema: string;
}

export function tableNames(schema: string, table: string): TableNames {
  const q = (name: string) => `"${name}"`;
  return {
    schema: q(schema),
    messages: `${q(schema)}.${q(table)}`,
    sessions: `${q(schema)}.${q(`${table}_sessions`)}`,
    attachments: `${q(schema)}.${q(`${table}_attachments`)}`,
    migrations: `${q(schema)}.${q(`${table}_migrations`)}`,
    table,
    rawSchema: schema,
  };
}

type Migration = (n: TableNames) => string[];

const MIGRATIONS: readonly Migration[] = [
  (n) => [
    `CREATE TABLE ${n.sessions} (
       session_id text COLLATE "C" PRIMARY KEY,
       count bigint NOT NULL DEFAULT 0,
       bytes bigint NOT NULL DEFAULT 0,
       updated_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE ${n.messages} (
       session_id text COLLATE "C" NOT NULL,
       seq bigint NOT NULL,
       message jsonb NOT NULL,
       run_id text,
       bytes integer NOT NULL,
       write_id text,
       created_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (session_id, seq))`,
    // lz4 (PostgreSQL 14+, when built with it) compresses and, above all, decompresses large
    // messages several times faster than the default pglz; where it is missing, pglz stays.
    `DO $$ BEGIN EXECUTE 'ALTER TABLE ${n.messages.replaceAll("'", "''")} ALTER COLUMN message SET COMPRESSION lz4'; EXCEPTION WHEN OTHERS THEN NULL; END $$`,
    `CREATE INDEX "${n.table}_run_idx" ON ${n.messages} (session_id, run_id) WHERE run_id IS NOT NULL`,
    `CREATE INDEX "${n.table}_created_idx" ON ${n.messages} (created_at)`,
    `CREATE INDEX "${n.table}_write_idx" ON ${n.messages} (session_id, write_id) WHERE write_id IS NOT NULL`,
    `CREATE INDEX "${n.table}_sessions_updated_idx" ON ${n.sessions} (updated_at)`,
  ],
  // 2: agent scoping. The primary keys are named by PostgreSQL's rule (<table>_pkey; table names
  // are at most 48 characters, so "<t>_sessions_pkey" stays under the 63-byte limit).
  (n) => [
    `ALTER TABLE ${n.sessions} ADD COLUMN agent_id text COLLATE "C" NOT NULL DEFAULT '${DEFAULT_AGENT_ID}'`,
    `ALTER TABLE ${n.messages} ADD COLUMN agent_id text COLLATE "C" NOT NULL DEFAULT '${DEFAULT_AGENT_ID}'`,
    `ALTER TABLE ${n.sessions} DROP CONSTRAINT "${n.table}_sessions_pkey", ADD PRIMARY KEY (agent_id, session_id)`,
    `ALTER TABLE ${n.messages} DROP CONSTRAINT "${n.table}_pkey", ADD PRIMARY KEY (agent_id, session_id, seq)`,
    `DROP INDEX ${n.schema}."${n.table}_run_idx"`,
    `DROP INDEX ${n.schema}."${n.table}_write_idx"`,
    `CREATE INDEX "${n.table}_run_idx" ON ${n.messages} (agent_id, session_id, run_id) WHERE run_id IS NOT NULL`,
    `CREATE INDEX "${n.table}_write_idx" ON ${n.messages} (agent_id, session_id, write_id) WHERE write_id IS NOT NULL`,
  ],
  // 3: lazy resume. The function and trigger names fit: tables are at most 48 characters.
  (n) => [
    `ALTER TABLE ${n.messages} ADD COLUMN body text, ADD COLUMN facts jsonb`,
    `DO $$ BEGIN EXECUTE 'ALTER TABLE ${n.messages.replaceAll("'", "''")} ALTER COLUMN body SET COMPRESSION lz4'; EXCEPTION WHEN OTHERS THEN NULL; END $$`,
    `CREATE FUNCTION ${n.schema}."${n.table}_stale_body"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.body := NULL; NEW.facts := NULL; RETURN NEW; END $$`,
    `CREATE TRIGGER "${n.table}_stale_body" BEFORE UPDATE OF message ON ${n.messages}
       FOR EACH ROW WHEN (NEW.body IS NOT DISTINCT FROM OLD.body) EXECUTE FUNCTION ${n.schema}."${n.table}_stale_body"()`,
  ],
  // 4: session attachments. "<t>_attachments_pkey" fits 63 bytes: tables are at most 48 characters.
  (n) => [
    `CREATE TABLE ${n.attachments} (
       agent_id text COLLATE "C" NOT NULL,
       session_id text COLLATE "C" NOT NULL,
       name text COLLATE "C" NOT NULL,
       body text NOT NULL,
       updated_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (agent_id, session_id, name))`,
  ],
  // 5: idempotent appends. "<t>_message_id_idx" fits 63 bytes: tables are at most 48 characters.
  (n) => [
    `ALTER TABLE ${n.messages} ADD COLUMN message_id text COLLATE "C"`,
    `UPDATE ${n.messages} t SET message_id = f.id
       FROM (SELECT DISTINCT ON (agent_id, session_id, message->'metadata'->>'id') agent_id, session_id, seq, message->'metadata'->>'id' AS id
             FROM ${n.messages} WHERE NULLIF(message->'metadata'->>'id', '') IS NOT NULL
             ORDER BY agent_id, session_id, message->'metadata'->>'id', seq) f
       WHERE t.agent_id = f.agent_id AND t.session_id = f.session_id AND t.seq = f.seq`,
    `CREATE UNIQUE INDEX "${messageIdIndex(n)}" ON ${n.messages} (agent_id, session_id, message_id) WHERE message_id IS NOT NULL`,
  ],
];

/** The unique index that makes appends idempotent by message id (migration 5). */
export function messageIdIndex(n: TableNames): string {
  return `${n.table}_message_id_idx`;
}

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the tables to SCHEMA_VERSION (or `target`, for tests that build an older layout);
 * returns the versions it applied (empty when up to date).
 */
export async function migrate(pool: pg.Pool, names: TableNames, target = MIGRATIONS.length): Promise<number[]> {
  // Tables already at the version: nothing is locked or created — a store that only reads (the
  // Inspector, `sessions show`) waits for no one, and needs no right to create in the schema.
  if ((await appliedVersion(pool, names)) >= Math.min(target, MIGRATIONS.length)) return [];
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`amplifier-ts:${names.rawSchema}.${names.table}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${names.schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${names.migrations} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${names.migrations}`);
    const current = rows[0]?.v ?? 0;
    const applied: number[] = [];
    for (let version = current + 1; version <= Math.min(target, MIGRATIONS.length); version++) {
      for (const statement of MIGRATIONS[version - 1]!(names)) await client.query(statement);
      await client.query(`INSERT INTO ${names.migrations} (version) VALUES ($1)`, [version]);
      applied.push(version);
    }
    await client.query("COMMIT");
    return applied;
  } catch (error) {
    broken = true;
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * The newest applied migration, read without a lock; 0 when it cannot be read (no migrations table
 * yet, or a failure: the locked migration then runs and reports what is wrong).
 */
async function appliedVersion(pool: pg.Pool, names: TableNames): Promise<number> {
  try {
    const { rows } = await pool.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${names.migrations}`);
    return rows[0]?.v ?? 0;
  } catch (error) {
    // No schema or no migrations table yet (3F000, 42P01): nothing applied. Anything else — the
    // server unreachable above all — is the caller's to retry or report, not a reason to connect
    // again for the locked path at once (that doubled the time an unreachable open took).
    const code = (error as { code?: unknown } | null)?.code;
    if (code === "42P01" || code === "3F000") return 0;
    throw error;
  }
}
