/**
 * The vector store types: one line each in BUILT_IN_VECTOR_STORES. `postgres` is a reference to
 * @amplifier-ts/vector-store-postgres, imported when a config first names it. Every definition
 * gets the session's embedder as `deps.embedder` (when one is registered).
 */
import type { Embedder, VectorStore } from "@amplifier-ts/contracts";
import { InMemoryVectorStore } from "@amplifier-ts/search";
import { defineStore, editorConfigSchema, registryConfigSchema, StoreRegistry, type StoreEntry, type StoreKind } from "@amplifier-ts/stores";
import { z } from "zod";

export const memoryVectorStore = defineStore<VectorStore>()({
  type: "memory",
  description: "InMemoryVectorStore (@amplifier-ts/search).",
  options: z.strictObject({}),
  create: (_options, deps) => {
    const embedder = deps.embedder as Embedder | undefined;
    return new InMemoryVectorStore(embedder === undefined ? {} : { embedder });
  },
});

export const BUILT_IN_VECTOR_STORES: readonly StoreEntry<VectorStore>[] = Object.freeze([
  memoryVectorStore,
  { type: "postgres", package: "@amplifier-ts/vector-store-postgres", export: "postgresVectorStore" },
]);

export const VECTOR_STORE_KIND: StoreKind = Object.freeze({ noun: "vector store", module: "store-vectors", path: "config", exports: Object.freeze(["vectorStore"]) });

/** The vector store types loadVectorStore and the store-vectors module know. */
export const vectorStores = new StoreRegistry<VectorStore>(VECTOR_STORE_KIND, BUILT_IN_VECTOR_STORES);

const META = {
  id: "StoreVectorsConfig",
  title: "StoreVectorsConfig",
  description: 'Config of store-vectors (the "vectors" capability). Documents without an embedding are embedded by the "embedder" capability when one is registered.',
};

/** store-vectors' config: a registered type and, once its definition is loaded, its options. */
export const storeVectorsConfigSchema = registryConfigSchema(vectorStores, META);

/** The config for editors, from every built-in type (`packages`: the driver packages, bundled by the emitter): modules/store-vectors/schemas/. */
export function storeVectorsEditorSchema(packages: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {}) {
  return editorConfigSchema(vectorStores, { memory: "MemoryVectorStoreConfig", postgres: "PostgresVectorStoreConfig" }, META, packages);
}

/** `{ type, …options }` of a vector store: memory, postgres or a registered type. */
export type VectorStoreConfig = { type: "memory" } | { type: "postgres"; url?: string; schema?: string; table?: string } | { type: string; [option: string]: unknown };

/** The names the config types had when contracts generated them. */
export type StoreVectorsConfig = VectorStoreConfig;
export type MemoryVectorStoreConfig = { type: "memory" };
export type PostgresVectorStoreConfig = Extract<VectorStoreConfig, { type: "postgres" }>;
