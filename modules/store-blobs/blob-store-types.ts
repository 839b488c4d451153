/**
 * The blob store types: one line each in BUILT_IN_BLOB_STORES. `postgres` is a reference to
 * @amplifier-ts/agent-stores-postgres, imported when a config first names it. A third party adds a
 * type with `blobStores.register(defineStore<BlobStore>()({ type, description, options, create }))`
 * or `{ type, package, export }`.
 */
import type { BlobStore } from "@amplifier-ts/contracts";
import { defineStore, defineStoreKind, maxBlobBytesOption as maxBlobBytes } from "@amplifier-ts/stores";
import { z } from "zod";
import { FileBlobStore } from "./file-blob-store.js";
import { MemoryBlobStore } from "./memory-blob-store.js";

export const memoryBlobStore = defineStore<BlobStore>()({
  type: "memory",
  description: "Blobs in this process (tests, development).",
  options: z.strictObject({ maxBlobBytes }),
  create: (options) => new MemoryBlobStore(options),
});

export const fileBlobStore = defineStore<BlobStore>()({
  type: "file",
  description: "Blobs in a folder, one atomically written file each: the embedded default.",
  options: z.strictObject({
    path: z.string().min(1).optional().meta({ description: "The folder (relative to the working directory). Default .amplifier/blobs." }),
    maxBlobBytes,
    tempMaxAgeMs: z
      .number()
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .meta({ description: "An upload's temp file not modified for this long (ms) is removed when a store opens the folder, whoever wrote it; a younger one only when its writer's process is gone. Default 86400000 (24 hours)." }),
  }),
  create: (options) => new FileBlobStore(options),
});

const blobKind = defineStoreKind<BlobStore>({
  noun: "blob store",
  module: "store-blobs",
  exports: ["blobStore"],
  builtIns: [
    memoryBlobStore,
    fileBlobStore,
    { type: "postgres", package: "@amplifier-ts/agent-stores-postgres", export: "postgresBlobStore" },
  ],
  config: { id: "StoreBlobsConfig", description: 'Config of store-blobs (the "blobs" capability) and of createBlobStore(). See contracts/BLOBS.md.' },
  editorTitles: { memory: "MemoryBlobStoreConfig", file: "FileBlobStoreConfig", postgres: "PostgresBlobStoreConfig" },
});

export const BUILT_IN_BLOB_STORES = blobKind.builtIns;
export const BLOB_STORE_KIND = blobKind.kind;
/** The blob store types createBlobStore and the store-blobs module know. */
export const blobStores = blobKind.registry;
/** store-blobs's config: a registered type and, once its definition is loaded, its options. */
export const storeBlobsConfigSchema = blobKind.configSchema;
/** The config for editors, from every built-in type (`packages`: the driver packages, bundled by the emitter): modules/store-blobs/schemas/. */
export const storeBlobsEditorSchema = blobKind.editorSchema;

/** `{ type, …options }` of a blob store: memory, file, postgres or a registered type. */
export type BlobStoreConfig =
  | { type: "memory"; maxBlobBytes?: number }
  | { type: "file"; path?: string; maxBlobBytes?: number; tempMaxAgeMs?: number }
  | { type: string; [option: string]: unknown };

/** The names the config types had when contracts generated them. */
export type StoreBlobsConfig = BlobStoreConfig;
export type MemoryBlobStoreConfig = Extract<BlobStoreConfig, { type: "memory" }>;
export type FileBlobStoreConfig = Extract<BlobStoreConfig, { type: "file" }>;
