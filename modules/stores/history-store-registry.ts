import type { HistoryStore } from "@amplifier-ts/contracts";
import type { HistoryStoreEntry } from "./history-store-definition.js";
import { StoreRegistry, type StoreBuildOptions, type StoreKind } from "./store-registry.js";

export const HISTORY_STORE_KIND: StoreKind = Object.freeze({ noun: "history store", module: "stores", path: "store", exports: Object.freeze(["historyStore", "driver"]) });

/** The registry of history store types (see store-registry.ts): `store`-rooted paths, `historyStore` exports. */
export class HistoryStoreRegistry extends StoreRegistry<HistoryStore> {
  constructor(entries: Iterable<HistoryStoreEntry> = [], options: { readonly parent?: HistoryStoreRegistry } = {}) {
    super(HISTORY_STORE_KIND, entries, options);
  }
}

export type HistoryStoreBuildOptions = StoreBuildOptions<HistoryStore>;
