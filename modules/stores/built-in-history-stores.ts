/**
 * The history store types every session knows: one line each. A type whose code is a separate
 * package is a reference, imported when a config first names it (loadHistoryStore), so a user
 * installs only the drivers they use. A session adds its own through the capability
 * "history-stores" (HISTORY_STORES_CAPABILITY).
 */
import type { HistoryStoreEntry } from "./history-store-definition.js";
import { HistoryStoreRegistry } from "./history-store-registry.js";
import { hybridHistoryStore } from "./hybrid-store-definition.js";
import { jsonlHistoryStore } from "./jsonl-store-definition.js";
import { memoryHistoryStore } from "./memory-store-definition.js";

export const BUILT_IN_HISTORY_STORES: readonly HistoryStoreEntry[] = Object.freeze([
  memoryHistoryStore,
  jsonlHistoryStore,
  { type: "postgres", package: "@amplifier-ts/store-postgres" },
  { type: "redis", package: "@amplifier-ts/store-redis" },
  hybridHistoryStore,
]);

/** The built-in catalogue: the parent of every session's registry. */
export const builtInHistoryStores = new HistoryStoreRegistry(BUILT_IN_HISTORY_STORES);
