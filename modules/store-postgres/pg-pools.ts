import type pg from "pg";

/**
 * One `pg.Pool` per connection URL for the whole process, shared by every PostgresStore on that
 * URL and counted: `acquirePool` adds a reference, the returned `release` drops it, and the last
 * release ends the pool so no socket or timer keeps the process alive.
 *
 * `pg` itself is imported on the first acquire, so programs that never use PostgreSQL (the JSONL
 * default, the CLI on files) do not pay for loading it.
 *
 * A pool emits `error` when an idle connection dies (the server restarted); that is expected and
 * must not crash the process, so it is swallowed here — the next query gets a fresh connection,
 * and a query that fails is retried by the store.
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

let driver: Promise<typeof pg> | undefined;

/** `connectTimeoutMs` bounds each new connection; like `max`, the first store on a URL sets it for the pool. */
export async function acquirePool(url: string, max = 10, connectTimeoutMs = 5_000): Promise<PoolLease> {
  const { Pool } = await (driver ??= import("pg").then((m) => m.default));
  let shared = POOLS.get(url);
  if (!shared) {
    const pool = new Pool({ connectionString: url, max, idleTimeoutMillis: 10_000, connectionTimeoutMillis: connectTimeoutMs });
    pool.on("error", () => undefined);
    shared = { pool, refs: 0 };
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
      await held.pool.end().catch(() => undefined);
    },
  };
}

/** How many URLs have a live pool (for tests: 0 after every store is closed). */
export function livePoolCount(): number {
  return POOLS.size;
}
