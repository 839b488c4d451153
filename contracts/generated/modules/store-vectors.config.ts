/* eslint-disable */
/**
 * Generated from contracts/schemas/modules/store-vectors.config.schema.json by `npm run contracts` (contracts/generate.mjs) — do not edit.
 * The schemas are emitted from their zod sources (contracts/emit-schemas.mjs): edit those and run
 * `npm run contracts`; test/contracts/generated-fresh.test.ts fails while this file is stale.
 */

/**
 * Config of store-vectors (the "vectors" capability). Documents without an embedding are embedded by the "embedder" capability when one is registered.
 */
export type StoreVectorsConfig = MemoryVectorStoreConfig | PostgresVectorStoreConfig;

/**
 * InMemoryVectorStore (@amplifier-ts/search).
 */
export interface MemoryVectorStoreConfig {
  type: "memory";
}
/**
 * PgVectorStore (@amplifier-ts/vector-store-postgres, the pgvector extension).
 */
export interface PostgresVectorStoreConfig {
  type: "postgres";
  /**
   * postgres://user@host:port/database. Default AMPLIFIER_PG_URL, else postgres://127.0.0.1:5432/test.
   */
  url?: string;
  /**
   * The schema holding the tables (created when missing). Default public.
   */
  schema?: string;
  /**
   * Default amplifier_vectors.
   */
  table?: string;
}
