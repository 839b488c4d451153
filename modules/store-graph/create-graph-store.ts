import type { GraphStore, StoreDriver } from "@amplifier-ts/contracts";
import type { StoreDriverSource } from "@amplifier-ts/stores";
import { graphStores, type GraphStoreConfig } from "./graph-store-types.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type GraphStoreDriver = StoreDriver<any, GraphStore>;

export interface GraphStoreDeps {
  /** Drivers by type that win over the registry's (loadGraphStore() imports the postgres one). */
  drivers?: { readonly [type: string]: GraphStoreDriver | undefined };
}

/** The built-in types (the registry's, in its order). */
export const GRAPH_STORE_TYPES = Object.freeze(graphStores.types()) as readonly string[];

export const GRAPH_POSTGRES_DRIVER: StoreDriverSource = { kind: "graph", type: "postgres", packageName: "@amplifier-ts/agent-stores-postgres", exportName: "graphDriver" };

/**
 * Builds a graph store (contracts/GRAPH.md), synchronously: memory, postgres or a registered type — a
 * type whose package is not loaded yet needs its driver in `deps.drivers` (loadGraphStore() imports
 * it; amplifier-ts/stores passes it). UNKNOWN_STORE, INVALID_ARGUMENT, STORE_DRIVER_MISSING as createBlobStore.
 */
export function createGraphStore(config: GraphStoreConfig, deps: GraphStoreDeps = {}): GraphStore {
  return graphStores.create(config, deps.drivers ? { drivers: deps.drivers } : {});
}

export async function loadGraphStore(config: GraphStoreConfig, deps: GraphStoreDeps = {}): Promise<GraphStore> {
  return graphStores.load(config, deps.drivers ? { drivers: deps.drivers } : {});
}
