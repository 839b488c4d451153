/**
 * The graph store types: one line each in BUILT_IN_GRAPH_STORES. `postgres` is a reference to
 * @amplifier-ts/agent-stores-postgres, imported when a config first names it. A third party adds a
 * type with `graphStores.register(defineStore<GraphStore>()({ type, description, options, create }))`
 * or `{ type, package, export }`.
 */
import type { GraphStore } from "@amplifier-ts/contracts";
import { defineStore, editorConfigSchema, registryConfigSchema, StoreRegistry, type StoreEntry, type StoreKind } from "@amplifier-ts/stores";
import { z } from "zod";
import { MemoryGraphStore } from "./memory-graph-store.js";

export const memoryGraphStore = defineStore<GraphStore>()({
  type: "memory",
  description: "A graph in this process (tests, development).",
  options: z.strictObject({}),
  create: () => new MemoryGraphStore(),
});

export const BUILT_IN_GRAPH_STORES: readonly StoreEntry<GraphStore>[] = Object.freeze([
  memoryGraphStore,
  { type: "postgres", package: "@amplifier-ts/agent-stores-postgres", export: "postgresGraphStore" },
]);

export const GRAPH_STORE_KIND: StoreKind = Object.freeze({ noun: "graph store", module: "store-graph", path: "config", exports: Object.freeze(["graphStore"]) });

/** The graph store types createGraphStore and the store-graph module know. */
export const graphStores = new StoreRegistry<GraphStore>(GRAPH_STORE_KIND, BUILT_IN_GRAPH_STORES);

const META = { id: "StoreGraphConfig", title: "StoreGraphConfig", description: 'Config of store-graph (the "graph" capability) and of createGraphStore(). See contracts/GRAPH.md.' };

/** store-graph's config: a registered type and, once its definition is loaded, its options. */
export const storeGraphConfigSchema = registryConfigSchema(graphStores, META);

/** The config for editors, from every built-in type (`packages`: the driver packages, bundled by the emitter): modules/store-graph/schemas/. */
export function storeGraphEditorSchema(packages: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {}) {
  return editorConfigSchema(graphStores, { memory: "MemoryGraphStoreConfig", postgres: "PostgresGraphStoreConfig" }, META, packages);
}

/** `{ type, …options }` of a graph store: memory, postgres or a registered type. */
export type GraphStoreConfig = { type: "memory" } | { type: string; [option: string]: unknown };

/** The names the config types had when contracts generated them. */
export type StoreGraphConfig = GraphStoreConfig;
export type MemoryGraphStoreConfig = { type: "memory" };
