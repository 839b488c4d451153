import type pg from "pg";
import { withDefaultUser } from "./default-user.js";

/**
 * Pools, made one way for every PostgreSQL package.
 *
 * | concern | how |
 * |---|---|
 * | driver | `pg` is imported on the first pool, so programs that never use PostgreSQL (the JSONL default, the CLI on files) do not pay for loading it |
 * | user | a url without one connects as psql would (default-user.ts) |
 * | idle deaths | a pool emits `error` when an idle connection dies (the server restarted); that is expected and must not crash the process, so it is swallowed — the next query gets a fresh connection |
 * | timeouts | each new connection gives up after `connectTimeoutMs` (default 5 s); idle connections close after `idleTimeoutMs` (default 10 s) so no socket keeps the process alive for long |
 * | close | `closePool` ends a pool and swallows a second end or a dead server: closing never fails |
 */
export interface PoolOptions {
  /** Connections at most (default 10). */
  max?: number;
  /** Bound on each new connection, in ms (default 5000). */
  connectTimeoutMs?: number;
  /** An idle connection is closed after this many ms (default 10000). */
  idleTimeoutMs?: number;
}

let driver: Promise<typeof pg> | undefined;

function loadDriver(): Promise<typeof pg> {
  return (driver ??= import("pg").then((m) => m.default));
}

function makePool(Pool: typeof pg.Pool, url: string, options: PoolOptions): pg.Pool {
  const pool = new Pool({
    connectionString: withDefaultUser(url),
    max: options.max ?? 10,
    idleTimeoutMillis: options.idleTimeoutMs ?? 10_000,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
  });
  pool.on("error", () => undefined);
  return pool;
}

/** A pool of its own for one store (see the table above). */
export async function createPool(url: string, options: PoolOptions = {}): Promise<pg.Pool> {
  const { Pool } = await loadDriver();
  return makePool(Pool, url, options);
}

/** Ends `pool` (nothing when there is none); never throws. */
export async function closePool(pool: pg.Pool | undefined): Promise<void> {
  await pool?.end().catch(() => undefined);
}

/**
 * One pool per connection URL for the whole process, shared by every store on that URL and
 * counted: `acquirePool` adds a reference, the returned `release` drops it, and the last release
 * ends the pool so no socket or timer keeps the process alive. Like `max`, the first store on a URL
 * sets `connectTimeoutMs` for the pool.
 */
interface SharedPool {
  pool: pg.Pool;
  refs: number;
}

const POOLS = new Map<string, SharedPool>();

export interface PoolLease {
  pool: pg.Pool;
  /** Idempotent; ends the pool when it was the last lease. */
  release(): Promise<void>;
}

export async function acquirePool(url: string, max = 10, connectTimeoutMs = 5_000): Promise<PoolLease> {
  const { Pool } = await loadDriver();
  let shared = POOLS.get(url);
  if (!shared) {
    shared = { pool: makePool(Pool, url, { max, connectTimeoutMs }), refs: 0 };
    POOLS.set(url, shared);
  }
  shared.refs++;
  const held = shared;
  let released = false;
  return {
    pool: held.pool,
    async release() {
      if (released) return;
      released = true;
      held.refs--;
      if (held.refs > 0) return;
      if (POOLS.get(url) === held) POOLS.delete(url);
      await closePool(held.pool);
    },
  };
}

/** How many URLs have a live shared pool (for tests: 0 after every store is closed). */
export function livePoolCount(): number {
  return POOLS.size;
}
