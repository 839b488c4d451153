// @amplifier-ts/store-postgres: durable, shared history in PostgreSQL (driver: pg).
import type { HistoryStoreDriver, PostgresStoreOptions } from "@amplifier-ts/contracts";
import { PostgresStore } from "./postgres-store.js";

export { PostgresStore, type PostgresStoreOptions } from "./postgres-store.js";
// Connection helpers of @amplifier-ts/pg-kit, still importable from here.
export { DEFAULT_PG_URL, defaultUser, redactUrl, withDefaultUser, type RetryPolicy } from "@amplifier-ts/pg-kit";

/** What @amplifier-ts/stores' loadHistoryStore() imports for `{ type: "postgres" }`. */
export const driver: HistoryStoreDriver<PostgresStoreOptions> = {
  type: "postgres",
  create: ({ url, schema, table, retry, poolSize, connectTimeoutMs }) => new PostgresStore({ url, schema, table, retry, poolSize, connectTimeoutMs }),
};
