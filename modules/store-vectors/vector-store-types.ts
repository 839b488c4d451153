/**
 * The vector store types: one line each in BUILT_IN_VECTOR_STORES. `postgres` is a reference to
 * @amplifier-ts/vector-store-postgres, imported when a config first names it. Every definition
 * gets the session's embedder as `deps.embedder` (when one is registered).
 */
import type { Embedder, VectorStore } from "@amplifier-ts/contracts";
import { InMemoryVectorStore } from "@amplifier-ts/search";
import { defineStore, defineStoreKind } from "@amplifier-ts/stores";
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

const vectorKind = defineStoreKind<VectorStore>({
  noun: "vector store",
  module: "store-vectors",
  exports: ["vectorStore"],
  builtIns: [
    memoryVectorStore,
    { type: "postgres", package: "@amplifier-ts/vector-store-postgres", export: "postgresVectorStore" },
  ],
  config: { id: "StoreVectorsConfig", description: 'Config of store-vectors (the "vectors" capability). Documents without an embedding are embedded by the "embedder" capability when one is registered.' },
  editorTitles: { memory: "MemoryVectorStoreConfig", postgres: "PostgresVectorStoreConfig" },
});

export const BUILT_IN_VECTOR_STORES = vectorKind.builtIns;
export const VECTOR_STORE_KIND = vectorKind.kind;
/** The vector store types loadVectorStore and the store-vectors module know. */
export const vectorStores = vectorKind.registry;
/** store-vectors's config: a registered type and, once its definition is loaded, its options. */
export const storeVectorsConfigSchema = vectorKind.configSchema;
/** The config for editors, from every built-in type (`packages`: the driver packages, bundled by the emitter): modules/store-vectors/schemas/. */
export const storeVectorsEditorSchema = vectorKind.editorSchema;

/** `{ type, …options }` of a vector store: memory, postgres or a registered type. */
export type VectorStoreConfig = { type: "memory" } | { type: "postgres"; url?: string; schema?: string; table?: string } | { type: string; [option: string]: unknown };

/** The names the config types had when contracts generated them. */
export type StoreVectorsConfig = VectorStoreConfig;
export type MemoryVectorStoreConfig = { type: "memory" };
export type PostgresVectorStoreConfig = Extract<VectorStoreConfig, { type: "postgres" }>;
