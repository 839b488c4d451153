import type { BlobStore, StoreDriver } from "@amplifier-ts/contracts";
import type { StoreDriverSource } from "@amplifier-ts/stores";
import type { BlobStoreConfig } from "./blob-store-types.js";
import { blobStores } from "./blob-store-types.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type BlobStoreDriver = StoreDriver<any, BlobStore>;

export interface BlobStoreDeps {
  /** Drivers by type that win over the registry's (loadBlobStore() imports the postgres one). */
  drivers?: { readonly [type: string]: BlobStoreDriver | undefined };
}

/** The built-in types (the registry's, in its order). */
export const BLOB_STORE_TYPES = Object.freeze(blobStores.types()) as readonly string[];

/** Where `{ type: "postgres" }` is served from. */
export const BLOB_POSTGRES_DRIVER: StoreDriverSource = { kind: "blobs", type: "postgres", packageName: "@amplifier-ts/agent-stores-postgres", exportName: "blobDriver" };

/**
 * Builds a blob store from its config (contracts/BLOBS.md), synchronously: memory, file (the
 * embedded default), postgres or a registered type — a type whose package is not loaded yet needs
 * its driver in `deps.drivers` (loadBlobStore() imports it; the amplifier-ts/stores entry passes
 * it for you). Unknown types → UNKNOWN_STORE; bad options → INVALID_ARGUMENT; no driver →
 * STORE_DRIVER_MISSING naming the package.
 */
export function createBlobStore(config: BlobStoreConfig, deps: BlobStoreDeps = {}): BlobStore {
  return blobStores.create(config, deps.drivers ? { drivers: deps.drivers } : {});
}

/** createBlobStore, after importing the package of the config's type when deps do not carry its driver. */
export async function loadBlobStore(config: BlobStoreConfig, deps: BlobStoreDeps = {}): Promise<BlobStore> {
  return blobStores.load(config, deps.drivers ? { drivers: deps.drivers } : {});
}
