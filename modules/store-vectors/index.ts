// @amplifier-ts/module-store-vectors: offers a VectorStore (contracts/search.ts) as the "vectors"
// capability — InMemoryVectorStore from @amplifier-ts/search, or PgVectorStore from
// @amplifier-ts/vector-store-postgres (imported only when the config names postgres).
import type { CoordinatorContract, Embedder, ModuleMeta, VectorStore, VectorStoreConfig } from "@amplifier-ts/contracts";
import { createError, describeValue, EMBEDDER_CAPABILITY, mountStoreCapability, storeDriverMissing, storeVectorsConfigSchema, VECTORS_CAPABILITY, type StoreDriverSource } from "@amplifier-ts/contracts";
import { InMemoryVectorStore } from "@amplifier-ts/search";

export const VECTORS_POSTGRES_PACKAGE: StoreDriverSource = { kind: "vectors", type: "postgres", packageName: "@amplifier-ts/vector-store-postgres", exportName: "PgVectorStore" };

export const meta: ModuleMeta = {
  name: "store-vectors",
  version: "0.1.0",
  description: 'A vector store (memory or pgvector) offered as the "vectors" capability; documents without an embedding use the "embedder" capability.',
  configSchema: storeVectorsConfigSchema,
};

/**
 * The configured vector store. `embedder` (default: none) embeds documents given without a vector
 * and queryText(). A postgres store without `url` uses AMPLIFIER_PG_URL; with neither, INVALID_ARGUMENT.
 */
export async function loadVectorStore(config: VectorStoreConfig, embedder?: Embedder): Promise<VectorStore> {
  const type = (config as { type?: unknown } | undefined)?.type;
  if (type === "memory") return new InMemoryVectorStore(embedder === undefined ? {} : { embedder });
  if (type !== "postgres") {
    throw createError("UNKNOWN_STORE", `no vector store of type ${describeValue(type)}`, { module: "store-vectors", path: "config.type", expected: "memory or postgres", given: type });
  }
  const { url = process.env.AMPLIFIER_PG_URL, schema, table } = config as Extract<VectorStoreConfig, { type: "postgres" }>;
  if (url === undefined) {
    throw createError("INVALID_ARGUMENT", "a postgres vector store needs a url", { module: "store-vectors", path: "config.url", expected: "postgres://user@host:port/database (or AMPLIFIER_PG_URL)", given: url });
  }
  let PgVectorStore: new (options: { url: string; schema?: string; table?: string; embedder?: Embedder }) => VectorStore;
  try {
    ({ PgVectorStore } = (await import(VECTORS_POSTGRES_PACKAGE.packageName)) as { PgVectorStore: typeof PgVectorStore });
  } catch (cause) {
    throw storeDriverMissing(VECTORS_POSTGRES_PACKAGE, cause);
  }
  return new PgVectorStore({ url, ...(schema === undefined ? {} : { schema }), ...(table === undefined ? {} : { table }), ...(embedder === undefined ? {} : { embedder }) });
}

/** Builds the configured store (with the session's "embedder" capability, if any) and registers it as "vectors"; cleanup closes it. */
export async function mount(coordinator: CoordinatorContract, config: VectorStoreConfig = { type: "memory" }): Promise<VectorStore> {
  const store = await loadVectorStore(config, coordinator.getCapability<Embedder>(EMBEDDER_CAPABILITY));
  return mountStoreCapability(coordinator, VECTORS_CAPABILITY, store, async () => undefined, async () => store.close?.());
}
