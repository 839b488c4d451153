// amplifier-ts/modules/stores, kept for existing imports: @amplifier-ts/stores with the PostgreSQL
// and Redis drivers the umbrella package installs, so createHistoryStore builds every store type
// synchronously, as it always did.
import type { HistoryStore } from "@amplifier-ts/contracts";
import { createHistoryStore as createWithDrivers, type HistoryStoreConfig, type HistoryStoreDeps } from "@amplifier-ts/stores";
import { driver as postgres } from "@amplifier-ts/store-postgres";
import { driver as redis } from "@amplifier-ts/store-redis";

export * from "@amplifier-ts/stores";
export { PostgresStore, DEFAULT_PG_URL } from "@amplifier-ts/store-postgres";
export { RedisStore, DEFAULT_REDIS_URL } from "@amplifier-ts/store-redis";

/** Both drivers this package ships. */
export const STORE_DRIVERS = Object.freeze({ postgres, redis });

/** @amplifier-ts/stores' createHistoryStore with STORE_DRIVERS (drivers given in deps win). */
export function createHistoryStore(config: HistoryStoreConfig, deps: HistoryStoreDeps = {}): HistoryStore {
  return createWithDrivers(config, { ...deps, drivers: { ...STORE_DRIVERS, ...deps.drivers } });
}
