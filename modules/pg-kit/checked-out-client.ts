import type pg from "pg";
import { isTransient } from "./retry.js";

/**
 * `use` on a client checked out of the pool (a failure to check out sent nothing). A connection cut
 * while checked out is reported to the query in flight; without a listener its 'error' event
 * (emitted when no query is active) would be an uncaught exception. On a failure `failed` runs
 * before the error goes on (a ROLLBACK, or noting that a statement was sent and its answer lost);
 * a client broken by a transient error is released to be destroyed, not reused.
 */
export async function onCheckedOutClient<T>(
  pool: pg.Pool,
  use: (client: pg.PoolClient) => Promise<T>,
  failed: (error: unknown, client: pg.PoolClient) => void | Promise<void> = () => undefined,
): Promise<T> {
  const client = await pool.connect();
  const onError = () => undefined;
  client.on("error", onError);
  let broken: unknown;
  try {
    return await use(client);
  } catch (error) {
    broken = error;
    await failed(error, client);
    throw error;
  } finally {
    client.off("error", onError);
    client.release(broken instanceof Error && isTransient(broken) ? broken : undefined);
  }
}

/**
 * Did the server answer this failure (a SQLSTATE: the statement failed, an autocommit statement
 * rolled back)? A connection lost after sending has none: the statement may have committed.
 */
export function answeredByServer(error: unknown): boolean {
  const e = error as { code?: unknown; severity?: unknown; message?: unknown } | null;
  // node-postgres refuses a query on a client it already knows to be dead: nothing was sent.
  if (typeof e?.message === "string" && /is not queryable/.test(e.message)) return true;
  return typeof e?.code === "string" && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.severity === "string";
}
