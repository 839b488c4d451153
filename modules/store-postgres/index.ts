// @amplifier-ts/store-postgres: durable, shared history in PostgreSQL (driver: pg).
import { defineHistoryStore, type HistoryStoreDriver } from "@amplifier-ts/stores";
import { PostgresStore } from "./postgres-store.js";
import { postgresStoreOptionsSchema, type PostgresStoreOptions } from "./postgres-store-options.js";

export { PostgresStore } from "./postgres-store.js";
export { postgresStoreOptionsSchema, type PostgresStoreOptions } from "./postgres-store-options.js";
// Connection helpers of @amplifier-ts/pg-kit, still importable from here.
export { DEFAULT_PG_URL, defaultUser, redactUrl, withDefaultUser, type RetryPolicy } from "@amplifier-ts/pg-kit";

/** `{ "type": "postgres" }`: what @amplifier-ts/stores' built-in list imports for this type. */
export const historyStore = defineHistoryStore({
  type: "postgres",
  description: "durable history shared by every process on a PostgreSQL database",
  options: postgresStoreOptionsSchema,
  create: (options) => createPostgresStore(options),
});

/** The factory alone, as store drivers were exported before definitions carried a schema. */
export const driver: HistoryStoreDriver<PostgresStoreOptions> = { type: "postgres", create: createPostgresStore };

function createPostgresStore({ url, schema, table, retry, poolSize, connectTimeoutMs }: PostgresStoreOptions): PostgresStore {
  return new PostgresStore({ url, schema, table, retry, poolSize, connectTimeoutMs });
}
