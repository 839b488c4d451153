import type { CoordinatorContract } from "../coordinator.js";
import { createError } from "../errors.js";
import type { VectorStore } from "../search.js";
import type { BlobStore } from "./blob-store.js";
import type { GraphStore } from "./graph-store.js";
import type { TaskStore } from "./task-store.js";

/**
 * The stores a session offers its tools as coordinator capabilities (configured under "stores"
 * in amplifier.config.json; contracts/MODULES.md). A tool reads them with
 * `coordinator.getCapability<BlobStore>(BLOBS_CAPABILITY)` or the typed helpers below.
 */
export const BLOBS_CAPABILITY = "blobs";
export const GRAPH_CAPABILITY = "graph";
export const TASKS_CAPABILITY = "tasks";
export const VECTORS_CAPABILITY = "vectors";

export interface StoreCapabilities {
  blobs: BlobStore;
  graph: GraphStore;
  tasks: TaskStore;
  vectors: VectorStore;
}

export type StoreCapabilityName = keyof StoreCapabilities;

/** The session's store of that kind, or undefined when none is configured. */
export function storeOf<K extends StoreCapabilityName>(coordinator: Pick<CoordinatorContract, "getCapability">, name: K): StoreCapabilities[K] | undefined {
  return coordinator.getCapability<StoreCapabilities[K]>(name);
}

/** The session's store of that kind; INVALID_ARGUMENT saying how to configure it when there is none. */
export function requireStore<K extends StoreCapabilityName>(coordinator: Pick<CoordinatorContract, "getCapability">, name: K): StoreCapabilities[K] {
  const store = storeOf(coordinator, name);
  if (store !== undefined) return store;
  throw createError("INVALID_ARGUMENT", `this session has no "${name}" store`, {
    path: `stores.${name}`,
    expected: `a "${name}" capability: "stores": { "${name}": { "module": "store-${name}", "config": { "type": "memory" } } } in amplifier.config.json`,
    given: undefined,
  });
}

/** A driver package's export for one store type: what the factories call for `{ type, …options }`. */
export interface StoreDriver<Options, Store> {
  readonly type: string;
  create(options: Options): Store;
}
