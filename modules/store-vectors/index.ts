// @amplifier-ts/module-store-vectors: offers a VectorStore (contracts/search.ts) as the "vectors"
// capability — InMemoryVectorStore from @amplifier-ts/search, or PgVectorStore from
// @amplifier-ts/vector-store-postgres (imported only when the config names postgres).
import type { CoordinatorContract, Embedder, ModuleMeta, VectorStore } from "@amplifier-ts/contracts";
import { EMBEDDER_CAPABILITY, VECTORS_CAPABILITY } from "@amplifier-ts/contracts";
import { mountStoreCapability, type StoreDriverSource } from "@amplifier-ts/stores";
import { storeVectorsConfigSchema, vectorStores, type VectorStoreConfig } from "./vector-store-types.js";

export { vectorStores, VECTOR_STORE_KIND, BUILT_IN_VECTOR_STORES, memoryVectorStore, storeVectorsConfigSchema, storeVectorsEditorSchema, type VectorStoreConfig, type StoreVectorsConfig, type MemoryVectorStoreConfig, type PostgresVectorStoreConfig } from "./vector-store-types.js";

export const VECTORS_POSTGRES_PACKAGE: StoreDriverSource = { kind: "vectors", type: "postgres", packageName: "@amplifier-ts/vector-store-postgres", exportName: "PgVectorStore" };

export const meta: ModuleMeta = {
  name: "store-vectors",
  version: "0.1.0",
  description: 'A vector store (memory or pgvector) offered as the "vectors" capability; documents without an embedding use the "embedder" capability.',
  configSchema: storeVectorsConfigSchema,
};

/**
 * The configured vector store, from the registry of vector store types. `embedder` (default: none)
 * embeds documents given without a vector and queryText(). A postgres store without `url` uses
 * AMPLIFIER_PG_URL; with neither, INVALID_ARGUMENT.
 */
export async function loadVectorStore(config: VectorStoreConfig, embedder?: Embedder): Promise<VectorStore> {
  return vectorStores.load(config, embedder === undefined ? {} : { services: { embedder } });
}

/** Builds the configured store (with the session's "embedder" capability, if any) and registers it as "vectors"; cleanup closes it. */
export async function mount(coordinator: CoordinatorContract, config: VectorStoreConfig = { type: "memory" }): Promise<VectorStore> {
  const store = await loadVectorStore(config, coordinator.getCapability<Embedder>(EMBEDDER_CAPABILITY));
  return mountStoreCapability(coordinator, VECTORS_CAPABILITY, store, async () => undefined, async () => store.close?.());
}
