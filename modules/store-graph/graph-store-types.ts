/**
 * The graph store types: one line each in BUILT_IN_GRAPH_STORES. `postgres` is a reference to
 * @amplifier-ts/agent-stores-postgres, imported when a config first names it. A third party adds a
 * type with `graphStores.register(defineStore<GraphStore>()({ type, description, options, create }))`
 * or `{ type, package, export }`.
 */
import type { GraphStore } from "@amplifier-ts/contracts";
import { defineStore, defineStoreKind } from "@amplifier-ts/stores";
import { z } from "zod";
import { MemoryGraphStore } from "./memory-graph-store.js";

export const memoryGraphStore = defineStore<GraphStore>()({
  type: "memory",
  description: "A graph in this process (tests, development).",
  options: z.strictObject({}),
  create: () => new MemoryGraphStore(),
});

const graphKind = defineStoreKind<GraphStore>({
  noun: "graph store",
  module: "store-graph",
  exports: ["graphStore"],
  builtIns: [
    memoryGraphStore,
    { type: "postgres", package: "@amplifier-ts/agent-stores-postgres", export: "postgresGraphStore" },
  ],
  config: { id: "StoreGraphConfig", description: 'Config of store-graph (the "graph" capability) and of createGraphStore(). See contracts/GRAPH.md.' },
  editorTitles: { memory: "MemoryGraphStoreConfig", postgres: "PostgresGraphStoreConfig" },
});

export const BUILT_IN_GRAPH_STORES = graphKind.builtIns;
export const GRAPH_STORE_KIND = graphKind.kind;
/** The graph store types createGraphStore and the store-graph module know. */
export const graphStores = graphKind.registry;
/** store-graph's config: a registered type and, once its definition is loaded, its options. */
export const storeGraphConfigSchema = graphKind.configSchema;
/** The config for editors, from every built-in type (`packages`: the driver packages, bundled by the emitter): modules/store-graph/schemas/. */
export const storeGraphEditorSchema = graphKind.editorSchema;

/** `{ type, …options }` of a graph store: memory, postgres or a registered type. */
export type GraphStoreConfig = { type: "memory" } | { type: string; [option: string]: unknown };

/** The names the config types had when contracts generated them. */
export type StoreGraphConfig = GraphStoreConfig;
export type MemoryGraphStoreConfig = { type: "memory" };
