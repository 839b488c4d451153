import type pg from "pg";
import { createError, isAmplifierError } from "@amplifier-ts/contracts";
import { answeredByServer, onCheckedOutClient } from "./checked-out-client.js";
import { redactUrl } from "./connection-url.js";

export interface TransactionOptions {
  /** The statement that opens it (default "BEGIN"), e.g. "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY". */
  begin?: string;
  /**
   * Called when COMMIT was sent and no answer came back (the connection was lost): the
   * transaction may have committed. A caller that retries settles it with a later try, or reports
   * the write as uncertain (`uncertainWrite`).
   */
  onCommitLost?: () => void;
}

/**
 * `body` between `begin` and COMMIT on one client checked out of `pool` (checked-out-client.ts:
 * a cut while it is held is survived, a broken client is destroyed). When anything fails, the
 * transaction is rolled back (a ROLLBACK that fails too is ignored: the server ends a transaction
 * whose connection is gone) and the first error goes on unchanged.
 *
 * | failure | committed? |
 * |---|---|
 * | checking out a client, BEGIN, the body | no |
 * | COMMIT answered with an error (a SQLSTATE) | no: the server rolled it back |
 * | COMMIT sent, connection lost before the answer | unknown: `onCommitLost` is called |
 */
export function withTransaction<T>(pool: pg.Pool, body: (client: pg.PoolClient) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  return onCheckedOutClient(
    pool,
    async (client) => {
      await client.query(options.begin ?? "BEGIN");
      const result = await body(client);
      await client.query("COMMIT").catch((error: unknown) => {
        if (!answeredByServer(error)) options.onCommitLost?.();
        throw error;
      });
      return result;
    },
    async (_error, client) => {
      await client.query("ROLLBACK").catch(() => undefined);
    },
  );
}

/** Where an uncertain write happened, for its error. */
export interface UncertainWrite {
  module: string;
  /** The server (its password is masked in the error). */
  url: string;
  /** The ids of the messages the write carried, if any. */
  messageIds?: string[];
}

/**
 * A write's final STORAGE_WRITE_FAILED becomes STORAGE_WRITE_UNCERTAIN when one of its tries may
 * have committed (it was sent and its answer lost); any other error is returned unchanged.
 */
export function uncertainWrite(error: unknown, where: UncertainWrite): unknown {
  if (!isAmplifierError(error, "STORAGE_WRITE_FAILED")) return error;
  return createError("STORAGE_WRITE_UNCERTAIN", `${error.message}; a try was sent and its answer lost, so it may have committed`, {
    module: where.module,
    hint: "the write may be stored: retry it (every write is idempotent — appends by message id — so a retry of a stored one changes nothing)",
    cause: error,
    url: redactUrl(where.url),
    messageIds: where.messageIds ?? [],
  });
}
