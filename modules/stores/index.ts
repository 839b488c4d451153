// The built-in HistoryStores (contracts/history-store.ts) and what they share.
export { MemoryStore } from "./memory-store.js";
export { JsonlStore, DEFAULT_STORAGE_PATH, type JsonlStoreOptions, type FsyncMode } from "./jsonl-store.js";
export { PostgresStore, DEFAULT_PG_URL, type PostgresStoreOptions } from "./postgres-store.js";
export { RedisStore, DEFAULT_REDIS_URL, type RedisStoreOptions, type RedisRetryPolicy } from "./redis-store.js";
export { parseStoreUrl } from "./store-url.js";
export { HybridStore, type HybridStoreOptions, type HybridStoreEvent } from "./hybrid-store.js";
export { createHistoryStore, HISTORY_STORE_TYPES, type HistoryStoreConfig, type HistoryStoreType, type HistoryStoreDeps } from "./create-store.js";
export { assertSessionId, isValidSessionId, SESSION_ID_PATTERN, MAX_SESSION_ID_LENGTH } from "./session-id.js";
