// @amplifier-ts/store-postgres: durable, shared history in PostgreSQL (driver: pg).
import type { HistoryStoreDriver, PostgresStoreOptions } from "@amplifier-ts/contracts";
import { PostgresStore } from "./postgres-store.js";

export { DEFAULT_PG_URL, PostgresStore, redactUrl, type PostgresStoreOptions } from "./postgres-store.js";
export type { RetryPolicy } from "./postgres-retry.js";
export { defaultUser, withDefaultUser } from "./default-user.js";

/** What @amplifier-ts/stores' loadHistoryStore() imports for `{ type: "postgres" }`. */
export const driver: HistoryStoreDriver<PostgresStoreOptions> = {
  type: "postgres",
  create: ({ url, schema, table, retry, poolSize, connectTimeoutMs }) => new PostgresStore({ url, schema, table, retry, poolSize, connectTimeoutMs }),
};
