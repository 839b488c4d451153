import type { HistoryStore, RecoveryReport } from "../../contracts/history-store.js";
import { createError, describeValue } from "../../core/errors.js";
import { JsonlStore, type FsyncMode } from "./jsonl-store.js";
import { MemoryStore } from "./memory-store.js";
import { PostgresStore, type PostgresStoreOptions } from "./postgres-store.js";
import { RedisStore, type RedisStoreOptions } from "./redis-store.js";

/** Which HistoryStore to build; the `type` picks it . */
export type HistoryStoreConfig =
  | { type: "memory" }
  | { type: "jsonl"; storagePath?: string; fsync?: FsyncMode; onRecover?: (report: RecoveryReport) => void }
  | ({ type: "postgres" } & PostgresStoreOptions)
  | ({ type: "redis" } & RedisStoreOptions);

export type HistoryStoreType = HistoryStoreConfig["type"];

type Factory<T extends HistoryStoreType> = (config: Extract<HistoryStoreConfig, { type: T }>) => HistoryStore;

/** One entry per type; `satisfies` makes the compiler prove none is missing. */
const FACTORIES = {
  memory: () => new MemoryStore(),
  jsonl: ({ storagePath, fsync, onRecover }) => new JsonlStore({ storagePath, fsync, onRecover }),
  postgres: ({ url, schema, table, retry, poolSize }) => new PostgresStore({ url, schema, table, retry, poolSize }),
  redis: ({ url, keyPrefix, ttlSeconds, maxMessages, retry, connectTimeoutMs }) => new RedisStore({ url, keyPrefix, ttlSeconds, maxMessages, retry, connectTimeoutMs }),
} satisfies { [T in HistoryStoreType]: Factory<T> };

export const HISTORY_STORE_TYPES = Object.keys(FACTORIES) as HistoryStoreType[];

/**
 * Builds a store from its config. Nothing touches storage here: a JSONL store reports an unusable
 * folder (STORAGE_UNAVAILABLE) when a session is first opened, which is where a context module
 * decides to fall back to memory. Unknown types → UNKNOWN_STORE; bad options → INVALID_ARGUMENT.
 */
export function createHistoryStore(config: HistoryStoreConfig): HistoryStore {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw createError("INVALID_ARGUMENT", "A store config must be an object with a type", {
      module: "stores",
      path: "store",
      expected: `{ type: ${HISTORY_STORE_TYPES.map((t) => JSON.stringify(t)).join(" | ")}, … }`,
      given: config,
    });
  }
  const type = (config as { type?: unknown }).type;
  if (typeof type !== "string" || !Object.hasOwn(FACTORIES, type)) {
    throw createError("UNKNOWN_STORE", `No history store of type ${describeValue(type)}`, {
      module: "stores",
      path: "store.type",
      expected: `one of ${HISTORY_STORE_TYPES.join(", ")}`,
      given: type,
    });
  }
  const factory = FACTORIES[type as HistoryStoreType] as Factory<HistoryStoreType>;
  return factory(config);
}
