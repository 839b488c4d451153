// amplifier-ts/modules/stores, kept for existing imports: @amplifier-ts/stores with the PostgreSQL
// and Redis drivers the umbrella package installs, so createHistoryStore builds every store type
// synchronously, as it always did.
import type { HistoryStore } from "@amplifier-ts/contracts";
import { createHistoryStore as createWithDrivers, type HistoryStoreConfig, type HistoryStoreDeps } from "@amplifier-ts/stores";
import { driver as postgres, historyStore as postgresHistoryStore } from "@amplifier-ts/store-postgres";
import { driver as redis, historyStore as redisHistoryStore } from "@amplifier-ts/store-redis";

export * from "@amplifier-ts/stores";
export { PostgresStore, DEFAULT_PG_URL, type PostgresStoreOptions } from "@amplifier-ts/store-postgres";
export { RedisStore, DEFAULT_REDIS_URL, type RedisStoreOptions, type RedisRetryPolicy } from "@amplifier-ts/store-redis";

export { postgresHistoryStore, redisHistoryStore };

/** Both drivers this package ships (their factories; the definitions are postgresHistoryStore, redisHistoryStore). */
export const STORE_DRIVERS = Object.freeze({ postgres, redis });

const DEFINITIONS = Object.freeze({ postgres: postgresHistoryStore, redis: redisHistoryStore });

/** @amplifier-ts/stores' createHistoryStore with both drivers loaded (drivers given in deps win). */
export function createHistoryStore(config: HistoryStoreConfig, deps: HistoryStoreDeps = {}): HistoryStore {
  // The caller's drivers win over these definitions, as they won over STORE_DRIVERS.
  const definitions = Object.fromEntries(Object.entries(DEFINITIONS).filter(([type]) => deps.drivers?.[type] === undefined));
  return createWithDrivers(config, { ...deps, definitions: { ...definitions, ...deps.definitions } });
}
