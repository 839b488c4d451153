// @amplifier-ts/module-store-blobs: blob stores (contracts/BLOBS.md) — the factory, the in-memory and
// file stores, and the module that offers one as the "blobs" capability.
import { resolve } from "node:path";
import type { ConfigLocationCapability, CoordinatorContract, ModuleMeta } from "@amplifier-ts/contracts";
import { BLOBS_CAPABILITY, CONFIG_LOCATION_CAPABILITY, type BlobStore } from "@amplifier-ts/contracts";
import { mountStoreCapability } from "@amplifier-ts/stores";
import { storeBlobsConfigSchema, type BlobStoreConfig } from "./blob-store-types.js";
import { loadBlobStore } from "./create-blob-store.js";
import { DEFAULT_BLOB_PATH } from "./file-blob-store.js";

export { MemoryBlobStore, type MemoryBlobStoreOptions } from "./memory-blob-store.js";
export { FileBlobStore, DEFAULT_BLOB_PATH, type FileBlobStoreOptions } from "./file-blob-store.js";
export { blobStores, BLOB_STORE_KIND, BUILT_IN_BLOB_STORES, fileBlobStore, memoryBlobStore, storeBlobsConfigSchema, storeBlobsEditorSchema, type BlobStoreConfig, type StoreBlobsConfig, type MemoryBlobStoreConfig, type FileBlobStoreConfig } from "./blob-store-types.js";
export { createBlobStore, loadBlobStore, BLOB_STORE_TYPES, BLOB_POSTGRES_DRIVER, type BlobStoreDeps, type BlobStoreDriver } from "./create-blob-store.js";

export const meta: ModuleMeta = {
  name: "store-blobs",
  version: "0.1.0",
  description: 'A blob store (memory, file or postgres) offered as the "blobs" capability.',
  configSchema: storeBlobsConfigSchema,
};

/**
 * Builds the configured store, connects it and registers it as the "blobs" capability; cleanup
 * disconnects it. A file store's relative `path` starts at the config file's folder (the "config"
 * capability), as context-persistent's storagePath does — not at the process's working directory.
 */
export async function mount(coordinator: CoordinatorContract, config: BlobStoreConfig = { type: "file" }): Promise<BlobStore> {
  const location = coordinator.getCapability<ConfigLocationCapability>(CONFIG_LOCATION_CAPABILITY);
  const placed = config.type === "file" && location !== undefined ? { ...config, path: resolve(location.baseDir, (config as { path?: string }).path ?? DEFAULT_BLOB_PATH) } : config;
  const store = await loadBlobStore(placed);
  return mountStoreCapability(coordinator, BLOBS_CAPABILITY, store, () => store.connect(), () => store.disconnect());
}
