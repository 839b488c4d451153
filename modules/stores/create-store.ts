import type { HistoryStore, RecoveryReport } from "../../contracts/history-store.js";
import { createError, describeValue } from "../../core/errors.js";
import { JsonlStore, type FsyncMode } from "./jsonl-store.js";
import { MemoryStore } from "./memory-store.js";
import { PostgresStore, type PostgresStoreOptions } from "./postgres-store.js";
import { RedisStore, type RedisStoreOptions } from "./redis-store.js";
import { HybridStore, type HybridStoreEvent } from "./hybrid-store.js";

/** Which HistoryStore to build; the `type` picks it . */
export type HistoryStoreConfig =
  | { type: "memory" }
  | { type: "jsonl"; storagePath?: string; fsync?: FsyncMode; onRecover?: (report: RecoveryReport) => void }
  | ({ type: "postgres" } & PostgresStoreOptions)
  | ({ type: "redis" } & RedisStoreOptions)
  | { type: "hybrid"; hot: HistoryStoreConfig; cold: HistoryStoreConfig; recentN?: number; probeIntervalMs?: number };

/** What a store may need from its host besides its config. */
export interface HistoryStoreDeps {
  /** Where stores that can degrade and recover (hybrid) report it; context-persistent forwards to the hook bus. */
  onEvent?: (event: HybridStoreEvent) => void | Promise<void>;
}

export type HistoryStoreType = HistoryStoreConfig["type"];

type Factory<T extends HistoryStoreType> = (config: Extract<HistoryStoreConfig, { type: T }>, deps: HistoryStoreDeps) => HistoryStore;

/** One entry per type; `satisfies` makes the compiler prove none is missing. */
const FACTORIES = {
  memory: () => new MemoryStore(),
  jsonl: ({ storagePath, fsync, onRecover }) => new JsonlStore({ storagePath, fsync, onRecover }),
  postgres: ({ url, schema, table, retry, poolSize }) => new PostgresStore({ url, schema, table, retry, poolSize }),
  redis: ({ url, keyPrefix, ttlSeconds, maxMessages, retry, connectTimeoutMs }) => new RedisStore({ url, keyPrefix, ttlSeconds, maxMessages, retry, connectTimeoutMs }),
  hybrid: ({ hot, cold, recentN, probeIntervalMs }, deps) => {
    for (const [side, config] of [["hot", hot], ["cold", cold]] as const) {
      if ((config as { type?: unknown } | undefined)?.type === "hybrid") {
        throw createError("INVALID_ARGUMENT", `a hybrid store's ${side} store cannot be hybrid`, { module: "stores", path: `store.${side}.type`, expected: "memory, jsonl, postgres or redis", given: "hybrid" });
      }
    }
    const keep = recentN ?? 200;
    // A Redis hot side holds only what the hybrid keeps hot, unless its own cap says otherwise.
    const hotConfig = hot?.type === "redis" && hot.maxMessages === undefined ? { ...hot, maxMessages: keep } : hot;
    const hotStore = createHistoryStore(hotConfig, deps);
    let coldStore: HistoryStore;
    try {
      coldStore = createHistoryStore(cold, deps);
    } catch (error) {
      void hotStore.close();
      throw error;
    }
    return new HybridStore({ hot: hotStore, cold: coldStore, recentN: keep, ...(probeIntervalMs === undefined ? {} : { probeIntervalMs }), ...(deps.onEvent ? { onEvent: deps.onEvent } : {}) });
  },
} satisfies { [T in HistoryStoreType]: Factory<T> };

export const HISTORY_STORE_TYPES = Object.keys(FACTORIES) as HistoryStoreType[];

/**
 * Builds a store from its config. Nothing touches storage here: a JSONL store reports an unusable
 * folder (STORAGE_UNAVAILABLE) when a session is first opened, which is where a context module
 * decides to fall back to memory. Unknown types → UNKNOWN_STORE; bad options → INVALID_ARGUMENT.
 */
export function createHistoryStore(config: HistoryStoreConfig, deps: HistoryStoreDeps = {}): HistoryStore {
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
  return factory(config, deps);
}
