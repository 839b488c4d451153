// @amplifier-ts/agent-stores-postgres: the PostgreSQL blob, graph and task stores (driver: pg) —
// the `postgres` type of store-blobs, store-graph and store-tasks (their built-in lists reference
// postgresBlobStore, postgresGraphStore, postgresTaskStore, imported when a config names postgres).
import type { BlobStore, GraphStore, StoreDriver, TaskStore } from "@amplifier-ts/contracts";
import { defineStore } from "@amplifier-ts/stores";
import { postgresBlobStoreOptionsSchema, postgresGraphStoreOptionsSchema, postgresTaskStoreOptionsSchema, type PostgresBlobStoreOptions, type PostgresGraphStoreOptions, type PostgresTaskStoreOptions } from "./agent-store-options.js";
import { PostgresBlobStore } from "./postgres-blob-store.js";
import { PostgresGraphStore } from "./postgres-graph-store.js";
import { PostgresTaskStore } from "./postgres-task-store.js";

export { PostgresBlobStore, DEFAULT_BLOB_CHUNK_BYTES } from "./postgres-blob-store.js";
export { PostgresGraphStore } from "./postgres-graph-store.js";
export { PostgresTaskStore } from "./postgres-task-store.js";
export { PostgresMemoryTree } from "./postgres-memory-tree.js";
export * from "./agent-store-options.js";

export const postgresBlobStore = defineStore<BlobStore>()({
  type: "postgres",
  description: "Blobs in PostgreSQL (bytea chunks), shared by every process on the database.",
  options: postgresBlobStoreOptionsSchema,
  create: (options) => new PostgresBlobStore(options),
});
export const postgresGraphStore = defineStore<GraphStore>()({
  type: "postgres",
  description: "a graph in PostgreSQL tables",
  options: postgresGraphStoreOptionsSchema,
  create: (options) => new PostgresGraphStore(options),
});
export const postgresTaskStore = defineStore<TaskStore>()({
  type: "postgres",
  description: "task boards in PostgreSQL tables",
  options: postgresTaskStoreOptionsSchema,
  create: (options) => new PostgresTaskStore(options),
});

/** The factories alone, as exported before definitions carried a schema. */
export const blobDriver: StoreDriver<PostgresBlobStoreOptions, BlobStore> = { type: "postgres", create: (options) => new PostgresBlobStore(options) };
export const graphDriver: StoreDriver<PostgresGraphStoreOptions, GraphStore> = { type: "postgres", create: (options) => new PostgresGraphStore(options) };
export const taskDriver: StoreDriver<PostgresTaskStoreOptions, TaskStore> = { type: "postgres", create: (options) => new PostgresTaskStore(options) };
