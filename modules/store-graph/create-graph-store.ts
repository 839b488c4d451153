import type { GraphStore, GraphStoreConfig, PostgresGraphStoreOptions, StoreDriver, StoreDriverSource } from "@amplifier-ts/contracts";
import { createError, describeValue, importStoreDriver, storeDriverMissing } from "@amplifier-ts/contracts";
import { MemoryGraphStore } from "./memory-graph-store.js";

export type GraphStoreDriver = StoreDriver<PostgresGraphStoreOptions, GraphStore>;

export interface GraphStoreDeps {
  drivers?: { postgres?: GraphStoreDriver };
}

export const GRAPH_STORE_TYPES = ["memory", "postgres"] as const;

export const GRAPH_POSTGRES_DRIVER: StoreDriverSource = { kind: "graph", type: "postgres", packageName: "@amplifier-ts/agent-stores-postgres", exportName: "graphDriver" };

/**
 * Builds a graph store (contracts/GRAPH.md), synchronously: memory, or postgres with its driver in
 * `deps.drivers` (loadGraphStore() imports it; amplifier-ts/stores passes it). UNKNOWN_STORE,
 * INVALID_ARGUMENT, STORE_DRIVER_MISSING as createBlobStore.
 */
export function createGraphStore(config: GraphStoreConfig, deps: GraphStoreDeps = {}): GraphStore {
  if (typeOf(config) === "memory") return new MemoryGraphStore();
  const driver = deps.drivers?.postgres;
  if (driver === undefined) throw storeDriverMissing(GRAPH_POSTGRES_DRIVER);
  const { type: _type, ...options } = config as Extract<GraphStoreConfig, { type: "postgres" }>;
  return driver.create(options);
}

export async function loadGraphStore(config: GraphStoreConfig, deps: GraphStoreDeps = {}): Promise<GraphStore> {
  if (typeOf(config) === "postgres" && deps.drivers?.postgres === undefined) {
    return createGraphStore(config, { drivers: { postgres: await importStoreDriver<GraphStoreDriver>(GRAPH_POSTGRES_DRIVER) } });
  }
  return createGraphStore(config, deps);
}

function typeOf(config: unknown): (typeof GRAPH_STORE_TYPES)[number] {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw createError("INVALID_ARGUMENT", "a graph store config must be an object with a type", { module: "store-graph", path: "config", expected: '{ type: "memory" | "postgres", … }', given: config });
  }
  const type = (config as { type?: unknown }).type;
  if (typeof type !== "string" || !(GRAPH_STORE_TYPES as readonly string[]).includes(type)) {
    throw createError("UNKNOWN_STORE", `no graph store of type ${describeValue(type)}`, { module: "store-graph", path: "config.type", expected: `one of ${GRAPH_STORE_TYPES.join(", ")}`, given: type });
  }
  return type as (typeof GRAPH_STORE_TYPES)[number];
}
