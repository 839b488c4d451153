/**
 * History store types (contracts/HISTORY-STORES.md) as registry entries:
 *
 * ```ts
 * export const historyStore = defineHistoryStore({
 *   type: "sqlite-like",
 *   description: "one database per name",
 *   options: z.looseObject({ database: z.string().min(1) }),
 *   create: (options) => new SqliteLikeStore(options.database),
 * });
 * ```
 *
 * A driver package exports its definition as `historyStore`; one line of BUILT_IN_HISTORY_STORES
 * (built-in-history-stores.ts) makes it built in.
 */
import type { HistoryStore } from "@amplifier-ts/contracts";
import type { HybridStoreEvent } from "./hybrid-store.js";
import type { AnyStoreDefinition, StoreCreateDeps, StoreDefinition, StoreDriver, StoreEntry, StoreReference } from "./store-definition.js";

export interface HistoryStoreCreateDeps extends StoreCreateDeps<HistoryStore> {
  /** Where stores that can degrade and recover (hybrid) report it. */
  readonly onEvent?: (event: HybridStoreEvent) => void | Promise<void>;
}

/** A factory alone: what driver packages exported as `driver` before definitions; still accepted in `deps.drivers`. */
export type HistoryStoreDriver<Options = Record<string, unknown>> = StoreDriver<Options, HistoryStore>;

export interface HistoryStoreDefinition<Options = unknown> extends StoreDefinition<Options, HistoryStore> {
  create(options: Options, deps: HistoryStoreCreateDeps): HistoryStore;
}

/** A typed identity: lets `create` see the schema's output type. */
export function defineHistoryStore<Options>(definition: HistoryStoreDefinition<Options>): HistoryStoreDefinition<Options> {
  return Object.freeze(definition);
}

export type AnyHistoryStoreDefinition = AnyStoreDefinition<HistoryStore>;
export type HistoryStoreReference = StoreReference;
export type HistoryStoreEntry = StoreEntry<HistoryStore>;

/**
 * Name of the coordinator capability through which a host registers history store types for ONE
 * session: a list of entries (definitions or package references), registered before the context
 * module mounts. context-persistent reads them over the built-in list.
 */
export const HISTORY_STORES_CAPABILITY = "history-stores";
