// @amplifier-ts/agent-stores-postgres: the PostgreSQL blob, graph and task stores (driver: pg) —
// what createBlobStore / createGraphStore / createTaskStore load for { type: "postgres" }.
import type { BlobStore, GraphStore, PostgresBlobStoreOptions, PostgresGraphStoreOptions, PostgresTaskStoreOptions, StoreDriver, TaskStore } from "@amplifier-ts/contracts";
import { PostgresBlobStore } from "./postgres-blob-store.js";
import { PostgresGraphStore } from "./postgres-graph-store.js";
import { PostgresTaskStore } from "./postgres-task-store.js";

export { PostgresBlobStore, DEFAULT_BLOB_CHUNK_BYTES } from "./postgres-blob-store.js";
export { PostgresGraphStore } from "./postgres-graph-store.js";
export { PostgresTaskStore } from "./postgres-task-store.js";

export const blobDriver: StoreDriver<PostgresBlobStoreOptions, BlobStore> = { type: "postgres", create: (options) => new PostgresBlobStore(options) };
export const graphDriver: StoreDriver<PostgresGraphStoreOptions, GraphStore> = { type: "postgres", create: (options) => new PostgresGraphStore(options) };
export const taskDriver: StoreDriver<PostgresTaskStoreOptions, TaskStore> = { type: "postgres", create: (options) => new PostgresTaskStore(options) };
