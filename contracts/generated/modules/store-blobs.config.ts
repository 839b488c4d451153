/* eslint-disable */
/**
 * Generated from contracts/schemas/modules/store-blobs.config.schema.json by `npm run contracts` (contracts/generate.mjs) — do not edit.
 * The schemas are emitted from their zod sources (contracts/emit-schemas.mjs): edit those and run
 * `npm run contracts`; test/contracts/generated-fresh.test.ts fails while this file is stale.
 */

/**
 * Config of store-blobs (the "blobs" capability) and of createBlobStore(). See contracts/BLOBS.md.
 */
export type StoreBlobsConfig = MemoryBlobStoreConfig | FileBlobStoreConfig | PostgresBlobStoreConfig;

/**
 * Blobs in this process (tests, development).
 */
export interface MemoryBlobStoreConfig {
  type: "memory";
  /**
   * Largest blob accepted, in bytes; a larger upload is STORE/BLOB_TOO_LARGE and writes nothing. Default 67108864 (64 MiB).
   */
  maxBlobBytes?: number;
}
/**
 * Blobs in a folder, one atomically written file each: the embedded default.
 */
export interface FileBlobStoreConfig {
  type: "file";
  /**
   * The folder (relative to the working directory). Default .amplifier/blobs.
   */
  path?: string;
  /**
   * Largest blob accepted, in bytes; a larger upload is STORE/BLOB_TOO_LARGE and writes nothing. Default 67108864 (64 MiB).
   */
  maxBlobBytes?: number;
  /**
   * An upload's temp file not modified for this long (ms) is removed when a store opens the folder, whoever wrote it; a younger one only when its writer's process is gone. Default 86400000 (24 hours).
   */
  tempMaxAgeMs?: number;
}
/**
 * Blobs in PostgreSQL (bytea chunks), shared by every process on the database.
 */
export interface PostgresBlobStoreConfig {
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
   * Prefix of the tables' names. Default amplifier.
   */
  tablePrefix?: string;
  /**
   * Connections of this store's own pool. Default 10.
   */
  poolSize?: number;
  /**
   * Largest blob accepted, in bytes; a larger upload is STORE/BLOB_TOO_LARGE and writes nothing. Default 67108864 (64 MiB).
   */
  maxBlobBytes?: number;
  /**
   * Bytes per stored chunk row (blobs are written and read a chunk at a time). Default 1048576 (1 MiB).
   */
  chunkBytes?: number;
}
