// @amplifier-ts/module-store-graph: graph stores (contracts/GRAPH.md) — the factory, the in-memory store
// and the module that offers one as the "graph" capability.
import type { CoordinatorContract, GraphStore, ModuleMeta } from "@amplifier-ts/contracts";
import { GRAPH_CAPABILITY } from "@amplifier-ts/contracts";
import { mountStoreCapability } from "@amplifier-ts/stores";
import { loadGraphStore } from "./create-graph-store.js";
import { storeGraphConfigSchema, type GraphStoreConfig } from "./graph-store-types.js";

export { graphStores, GRAPH_STORE_KIND, BUILT_IN_GRAPH_STORES, memoryGraphStore, storeGraphConfigSchema, storeGraphEditorSchema, type GraphStoreConfig, type StoreGraphConfig, type MemoryGraphStoreConfig } from "./graph-store-types.js";

export { isCypherCapable, type CypherCapable } from "@amplifier-ts/contracts";
export { MemoryGraphStore } from "./memory-graph-store.js";
export { createGraphStore, loadGraphStore, GRAPH_STORE_TYPES, GRAPH_POSTGRES_DRIVER, type GraphStoreDeps, type GraphStoreDriver } from "./create-graph-store.js";

export const meta: ModuleMeta = {
  name: "store-graph",
  version: "0.1.0",
  description: 'A graph store (memory or postgres) offered as the "graph" capability.',
  configSchema: storeGraphConfigSchema,
};

/** Builds the configured store, connects it and registers it as the "graph" capability; cleanup disconnects it. */
export async function mount(coordinator: CoordinatorContract, config: GraphStoreConfig = { type: "memory" }): Promise<GraphStore> {
  const store = await loadGraphStore(config);
  return mountStoreCapability(coordinator, GRAPH_CAPABILITY, store, () => store.connect(), () => store.disconnect());
}
