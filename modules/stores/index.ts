// @amplifier-ts/stores: the store factory, the stores without drivers (memory, JSONL, hybrid) and
// what every HistoryStore implementation shares. PostgreSQL and Redis live in their own packages.
export { MemoryStore } from "./memory-store.js";
export { JsonlStore, DEFAULT_STORAGE_PATH, type JsonlStoreOptions, type FsyncMode } from "./jsonl-store.js";
export {
  defineHistoryStore,
  HISTORY_STORES_CAPABILITY,
  type AnyHistoryStoreDefinition,
  type HistoryStoreCreateDeps,
  type HistoryStoreDefinition,
  type HistoryStoreDriver,
  type HistoryStoreEntry,
  type HistoryStoreReference,
} from "./history-store-definition.js";
export type { RetryPolicy } from "./retry-policy.js";
export { HistoryStoreRegistry, HISTORY_STORE_KIND, type HistoryStoreBuildOptions } from "./history-store-registry.js";
export { registryConfigSchema, editorConfigSchema } from "./store-config-schema.js";
export { defineStoreKind, type StoreKindSpec, type StoreKindFace, type BundledPackages } from "./store-kind.js";
export { maxBlobBytesOption } from "./blob-size-option.js";
export { StoreRegistry, type StoreBuildOptions, type StoreKind } from "./store-registry.js";
export { defineStore, type AnyStoreDefinition, type StoreCreateDeps, type StoreDefinition, type StoreDriver, type StoreEntry, type StoreReference } from "./store-definition.js";
export { BUILT_IN_HISTORY_STORES, builtInHistoryStores } from "./built-in-history-stores.js";
export { memoryHistoryStore } from "./memory-store-definition.js";
export { jsonlHistoryStore, jsonlStoreOptionsSchema } from "./jsonl-store-definition.js";
export { hybridHistoryStore } from "./hybrid-store-definition.js";
export { parseStoreUrl } from "./store-url.js";
export { HybridStore, type HybridStoreOptions, type HybridStoreEvent } from "./hybrid-store.js";
export { createHistoryStore, loadHistoryStore, driverTypesOf, HISTORY_STORE_TYPES, DRIVER_PACKAGES, type HistoryStoreConfig, type HistoryStoreType, type HistoryStoreDeps, type StoreDrivers, type DriverStoreType } from "./create-store.js";
export { assertSessionId, isValidSessionId, SESSION_ID_PATTERN, MAX_SESSION_ID_LENGTH } from "./session-id.js";
export { agentIdOf, assertAgentId, isValidAgentId, agentSessionKey } from "./agent-id.js";
export { forAgent } from "./agent-view.js";
export { jsonlAgentFolder, jsonlAttachmentPath, jsonlSessionPaths, JSONL_AGENTS_FOLDER, type JsonlSessionPaths } from "./jsonl-paths.js";
export { decodeStored, decodeStoredText, encodeMessage, encodeMessages, type EncodedMessage } from "./message-codec.js";
export { assertRunId, resolvePage } from "./store-arguments.js";
export { assertAttachmentName, assertAttachmentText } from "./attachment-arguments.js";
export { WriteQueue } from "./write-queue.js";
export { lazyMessagesFrom, isUnparsed, type LazyRecord, type RecordSource } from "./lazy-message.js";
export { decodeFacts, encodeFacts, FACTS_LENGTH } from "./message-facts-codec.js";
export { mountStoreCapability } from "./mount-store-capability.js";
export { importStoreDriver, storeDriverMissing, type StoreDriverSource } from "./store-driver-source.js";
