import type { BlobStore, BlobStoreConfig, PostgresBlobStoreOptions, StoreDriver, StoreDriverSource } from "@amplifier-ts/contracts";
import { createError, describeValue, importStoreDriver, storeDriverMissing } from "@amplifier-ts/contracts";
import { FileBlobStore } from "./file-blob-store.js";
import { MemoryBlobStore } from "./memory-blob-store.js";

export type BlobStoreDriver = StoreDriver<PostgresBlobStoreOptions, BlobStore>;

export interface BlobStoreDeps {
  /** The driver of `{ type: "postgres" }` (loadBlobStore() imports it). */
  drivers?: { postgres?: BlobStoreDriver };
}

export const BLOB_STORE_TYPES = ["memory", "file", "postgres"] as const;

/** Where `{ type: "postgres" }` is served from. */
export const BLOB_POSTGRES_DRIVER: StoreDriverSource = { kind: "blobs", type: "postgres", packageName: "@amplifier-ts/agent-stores-postgres", exportName: "blobDriver" };

/**
 * Builds a blob store from its config (contracts/BLOBS.md), synchronously: memory, file (the
 * embedded default) or postgres — the last needs its driver in `deps.drivers` (loadBlobStore()
 * imports it; the amplifier-ts/stores entry passes it for you). Unknown types → UNKNOWN_STORE;
 * bad options → INVALID_ARGUMENT; no driver → STORE_DRIVER_MISSING naming the package.
 */
export function createBlobStore(config: BlobStoreConfig, deps: BlobStoreDeps = {}): BlobStore {
  const type = typeOf(config);
  switch (type) {
    case "memory":
      return new MemoryBlobStore({ ...optional(config, "maxBlobBytes") });
    case "file":
      return new FileBlobStore({ ...optional(config, "path"), ...optional(config, "maxBlobBytes"), ...optional(config, "tempMaxAgeMs") });
    case "postgres": {
      const driver = deps.drivers?.postgres;
      if (driver === undefined) throw storeDriverMissing(BLOB_POSTGRES_DRIVER);
      const { type: _type, ...options } = config as Extract<BlobStoreConfig, { type: "postgres" }>;
      return driver.create(options);
    }
  }
}

/** createBlobStore, after importing the postgres driver when the config names it and deps do not carry it. */
export async function loadBlobStore(config: BlobStoreConfig, deps: BlobStoreDeps = {}): Promise<BlobStore> {
  if (typeOf(config) === "postgres" && deps.drivers?.postgres === undefined) {
    return createBlobStore(config, { drivers: { postgres: await importStoreDriver<BlobStoreDriver>(BLOB_POSTGRES_DRIVER) } });
  }
  return createBlobStore(config, deps);
}

function typeOf(config: unknown): (typeof BLOB_STORE_TYPES)[number] {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw createError("INVALID_ARGUMENT", "a blob store config must be an object with a type", { module: "store-blobs", path: "config", expected: '{ type: "memory" | "file" | "postgres", … }', given: config });
  }
  const type = (config as { type?: unknown }).type;
  if (typeof type !== "string" || !(BLOB_STORE_TYPES as readonly string[]).includes(type)) {
    throw createError("UNKNOWN_STORE", `no blob store of type ${describeValue(type)}`, { module: "store-blobs", path: "config.type", expected: `one of ${BLOB_STORE_TYPES.join(", ")}`, given: type });
  }
  return type as (typeof BLOB_STORE_TYPES)[number];
}

function optional<K extends string>(config: object, key: K): Partial<Record<K, never>> {
  const value = (config as Record<string, unknown>)[key];
  return (value === undefined ? {} : { [key]: value }) as Partial<Record<K, never>>;
}
