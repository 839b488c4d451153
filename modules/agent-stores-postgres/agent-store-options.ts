import { maxBlobBytesOption } from "@amplifier-ts/stores";
import { z } from "zod";

/**
 * The options of the PostgreSQL blob, graph and task stores (`{ "type": "postgres", … }` under
 * store-blobs, store-graph, store-tasks): the connection fields they share, and the blob store's own.
 */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,40}$/;

export const postgresConnectionFields = {
  url: z.string().regex(/^postgres(ql)?:\/\//).optional().meta({ description: "postgres://user@host:port/database. Default AMPLIFIER_PG_URL, else postgres://127.0.0.1:5432/test." }),
  schema: z.string().regex(IDENTIFIER).optional().meta({ description: "The schema holding the tables (created when missing). Default public." }),
  tablePrefix: z.string().regex(IDENTIFIER).optional().meta({ description: "Prefix of the tables' names. Default amplifier." }),
  poolSize: z.number().int().min(1).max(1000).optional().meta({ description: "Connections of this store's own pool. Default 10." }),
};

/** Largest blob accepted: the option every blob store type shares. */
export { maxBlobBytesOption };

export const postgresBlobStoreOptionsSchema = z.strictObject({
  ...postgresConnectionFields,
  maxBlobBytes: maxBlobBytesOption,
  chunkBytes: z.number().int().min(1024).max(64 * 1024 * 1024).optional().meta({ description: "Bytes per stored chunk row (blobs are written and read a chunk at a time). Default 1048576 (1 MiB)." }),
});
export const postgresGraphStoreOptionsSchema = z.strictObject(postgresConnectionFields);
export const postgresTaskStoreOptionsSchema = z.strictObject(postgresConnectionFields);
export const postgresMemoryTreeOptionsSchema = z.strictObject(postgresConnectionFields);

export type PostgresBlobStoreOptions = z.input<typeof postgresBlobStoreOptionsSchema>;
export type PostgresGraphStoreOptions = z.input<typeof postgresGraphStoreOptionsSchema>;
export type PostgresTaskStoreOptions = z.input<typeof postgresTaskStoreOptionsSchema>;
export type PostgresMemoryTreeOptions = z.input<typeof postgresMemoryTreeOptionsSchema>;

/** The configs with their type, under the names contracts once generated. */
export type PostgresBlobStoreConfig = { type: "postgres" } & PostgresBlobStoreOptions;
export type PostgresGraphStoreConfig = { type: "postgres" } & PostgresGraphStoreOptions;
export type PostgresTaskStoreConfig = { type: "postgres" } & PostgresTaskStoreOptions;
