// amplifier-ts/stores: every store factory with every driver the umbrella package installs, so
// each builds synchronously — history (createHistoryStore, as amplifier-ts/modules/stores),
// blobs (createBlobStore: memory, file, postgres), graphs (createGraphStore: memory, postgres) and
// task boards (createTaskStore: memory, postgres); the store contracts (contracts/BLOBS.md,
// GRAPH.md, TASKS.md) and the agent context a tool reads to know whose board it writes.
import type { BlobStore, GraphStore, TaskStore } from "@amplifier-ts/contracts";
import { blobDriver, graphDriver, taskDriver } from "@amplifier-ts/agent-stores-postgres";
import { createBlobStore as createBlobWith, type BlobStoreConfig, type BlobStoreDeps } from "@amplifier-ts/module-store-blobs";
import { createGraphStore as createGraphWith, type GraphStoreConfig, type GraphStoreDeps } from "@amplifier-ts/module-store-graph";
import { createTaskStore as createTaskWith, type TaskStoreConfig, type TaskStoreDeps } from "@amplifier-ts/module-store-tasks";

export * from "./modules/stores.js";
export { MemoryBlobStore, FileBlobStore, DEFAULT_BLOB_PATH, loadBlobStore, BLOB_STORE_TYPES, blobStores, storeBlobsConfigSchema, type BlobStoreConfig, type StoreBlobsConfig, type MemoryBlobStoreConfig, type FileBlobStoreConfig, type BlobStoreDeps, type BlobStoreDriver, type FileBlobStoreOptions, type MemoryBlobStoreOptions } from "@amplifier-ts/module-store-blobs";
export { MemoryGraphStore, loadGraphStore, GRAPH_STORE_TYPES, graphStores, storeGraphConfigSchema, type GraphStoreConfig, type StoreGraphConfig, type MemoryGraphStoreConfig, type GraphStoreDeps, type GraphStoreDriver } from "@amplifier-ts/module-store-graph";
export { MemoryTaskStore, loadTaskStore, TASK_STORE_TYPES, taskStores, storeTasksConfigSchema, type TaskStoreConfig, type StoreTasksConfig, type MemoryTaskStoreConfig, type TaskStoreDeps, type TaskStoreDriver } from "@amplifier-ts/module-store-tasks";
export { loadVectorStore, vectorStores, storeVectorsConfigSchema, type VectorStoreConfig, type StoreVectorsConfig, type MemoryVectorStoreConfig, type PostgresVectorStoreConfig } from "@amplifier-ts/module-store-vectors";
export { PostgresBlobStore, PostgresGraphStore, PostgresTaskStore, DEFAULT_BLOB_CHUNK_BYTES, type PostgresBlobStoreOptions, type PostgresGraphStoreOptions, type PostgresTaskStoreOptions, type PostgresBlobStoreConfig, type PostgresGraphStoreConfig, type PostgresTaskStoreConfig } from "@amplifier-ts/agent-stores-postgres";
export {
  isCypherCapable,
  requireStore,
  storeOf,
  storeErrors,
  BLOBS_CAPABILITY,
  GRAPH_CAPABILITY,
  TASKS_CAPABILITY,
  VECTORS_CAPABILITY,
  TASK_STATUSES,
  type AgentContext,
  type BlobDownload,
  type BlobStore,
  type CypherCapable,
  type GraphEntity,
  type GraphRelationship,
  type GraphStore,
  type NeighborOptions,
  type NewEntity,
  type NewRelationship,
  type NewTask,
  type NewTaskList,
  type SubGraph,
  type Task,
  type TaskList,
  type TaskStatus,
  type TaskStore,
} from "@amplifier-ts/contracts";
export { runWithAgentContext, currentAgentContext, requireAgentContext, childAgentContext } from "@amplifier-ts/core";

/** createBlobStore of @amplifier-ts/module-store-blobs with the PostgreSQL driver (drivers given in deps win). */
export function createBlobStore(config: BlobStoreConfig, deps: BlobStoreDeps = {}): BlobStore {
  return createBlobWith(config, { drivers: { postgres: blobDriver, ...deps.drivers } });
}

/** createGraphStore of @amplifier-ts/module-store-graph with the PostgreSQL driver. */
export function createGraphStore(config: GraphStoreConfig, deps: GraphStoreDeps = {}): GraphStore {
  return createGraphWith(config, { drivers: { postgres: graphDriver, ...deps.drivers } });
}

/** createTaskStore of @amplifier-ts/module-store-tasks with the PostgreSQL driver. */
export function createTaskStore(config: TaskStoreConfig, deps: TaskStoreDeps = {}): TaskStore {
  return createTaskWith(config, { drivers: { postgres: taskDriver, ...deps.drivers } });
}
