import { z } from "zod";
import { DEFAULT_MAX_BLOB_BYTES } from "./blob-store.js";

/**
 * The config schemas of the store capability modules — one source each (contracts/emit-schemas.mjs
 * writes contracts/schemas/modules/store-{blobs,graph,tasks,vectors}.config.schema.json from
 * them). The same objects are what createBlobStore / createGraphStore / createTaskStore take.
 *
 * | schema | types |
 * |---|---|
 * | storeBlobsConfigSchema | memory · file (the embedded default) · postgres |
 * | storeGraphConfigSchema | memory · postgres |
 * | storeTasksConfigSchema | memory · postgres |
 * | storeVectorsConfigSchema | memory · postgres (pgvector) |
 */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,40}$/;

const postgres = {
  url: z.string().regex(/^postgres(ql)?:\/\//).optional().meta({ description: "postgres://user@host:port/database. Default AMPLIFIER_PG_URL, else postgres://127.0.0.1:5432/test." }),
  schema: z.string().regex(IDENTIFIER).optional().meta({ description: "The schema holding the tables (created when missing). Default public." }),
  tablePrefix: z.string().regex(IDENTIFIER).optional().meta({ description: "Prefix of the tables' names. Default amplifier." }),
  poolSize: z.number().int().min(1).max(1000).optional().meta({ description: "Connections of this store's own pool. Default 10." }),
};

const maxBlobBytes = z
  .number()
  .int()
  .min(1)
  .max(2 ** 31 - 1)
  .optional()
  .meta({ description: `Largest blob accepted, in bytes; a larger upload is STORE/BLOB_TOO_LARGE and writes nothing. Default ${DEFAULT_MAX_BLOB_BYTES} (64 MiB).` });

export const storeBlobsConfigSchema = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("memory"), maxBlobBytes }).meta({ title: "MemoryBlobStoreConfig", description: "Blobs in this process (tests, development)." }),
    z
      .strictObject({
        type: z.literal("file"),
        path: z.string().min(1).optional().meta({ description: "The folder (relative to the working directory). Default .amplifier/blobs." }),
        maxBlobBytes,
        tempMaxAgeMs: z
          .number()
          .int()
          .min(1)
          .max(Number.MAX_SAFE_INTEGER)
          .optional()
          .meta({ description: "An upload's temp file not modified for this long (ms) is removed when a store opens the folder, whoever wrote it; a younger one only when its writer's process is gone. Default 86400000 (24 hours)." }),
      })
      .meta({ title: "FileBlobStoreConfig", description: "Blobs in a folder, one atomically written file each: the embedded default." }),
    z
      .strictObject({
        type: z.literal("postgres"),
        ...postgres,
        maxBlobBytes,
        chunkBytes: z.number().int().min(1024).max(64 * 1024 * 1024).optional().meta({ description: "Bytes per stored chunk row (blobs are written and read a chunk at a time). Default 1048576 (1 MiB)." }),
      })
      .meta({ title: "PostgresBlobStoreConfig", description: "Blobs in PostgreSQL (bytea chunks), shared by every process on the database." }),
  ])
  .meta({ id: "StoreBlobsConfig", title: "StoreBlobsConfig", description: 'Config of store-blobs (the "blobs" capability) and of createBlobStore(). See contracts/BLOBS.md.' });

export const storeGraphConfigSchema = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("memory") }).meta({ title: "MemoryGraphStoreConfig" }),
    z.strictObject({ type: z.literal("postgres"), ...postgres }).meta({ title: "PostgresGraphStoreConfig" }),
  ])
  .meta({ id: "StoreGraphConfig", title: "StoreGraphConfig", description: 'Config of store-graph (the "graph" capability) and of createGraphStore(). See contracts/GRAPH.md.' });

export const storeTasksConfigSchema = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("memory") }).meta({ title: "MemoryTaskStoreConfig" }),
    z.strictObject({ type: z.literal("postgres"), ...postgres }).meta({ title: "PostgresTaskStoreConfig" }),
  ])
  .meta({ id: "StoreTasksConfig", title: "StoreTasksConfig", description: 'Config of store-tasks (the "tasks" capability) and of createTaskStore(). See contracts/TASKS.md.' });

export const storeVectorsConfigSchema = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("memory") }).meta({ title: "MemoryVectorStoreConfig", description: "InMemoryVectorStore (@amplifier-ts/search)." }),
    z
      .strictObject({
        type: z.literal("postgres"),
        url: postgres.url,
        schema: postgres.schema,
        table: z.string().regex(IDENTIFIER).optional().meta({ description: "Default amplifier_vectors." }),
      })
      .meta({ title: "PostgresVectorStoreConfig", description: "PgVectorStore (@amplifier-ts/vector-store-postgres, the pgvector extension)." }),
  ])
  .meta({
    id: "StoreVectorsConfig",
    title: "StoreVectorsConfig",
    description: 'Config of store-vectors (the "vectors" capability). Documents without an embedding are embedded by the "embedder" capability when one is registered.',
  });

export type BlobStoreConfig = z.input<typeof storeBlobsConfigSchema>;
export type GraphStoreConfig = z.input<typeof storeGraphConfigSchema>;
export type TaskStoreConfig = z.input<typeof storeTasksConfigSchema>;
export type VectorStoreConfig = z.input<typeof storeVectorsConfigSchema>;
export type PostgresBlobStoreOptions = Omit<Extract<BlobStoreConfig, { type: "postgres" }>, "type">;
export type PostgresGraphStoreOptions = Omit<Extract<GraphStoreConfig, { type: "postgres" }>, "type">;
export type PostgresTaskStoreOptions = Omit<Extract<TaskStoreConfig, { type: "postgres" }>, "type">;
