import type { HistoryStore, HistoryStoreDriver, PostgresStoreOptions, RecoveryReport, RedisStoreOptions } from "@amplifier-ts/contracts";
import { createError, describeValue } from "@amplifier-ts/contracts";
import { JsonlStore, type FsyncMode } from "./jsonl-store.js";
import { MemoryStore } from "./memory-store.js";
import { HybridStore, type HybridStoreEvent } from "./hybrid-store.js";

/** Which HistoryStore to build; the `type` picks it . */
export type HistoryStoreConfig =
  | { type: "memory" }
  | { type: "jsonl"; storagePath?: string; fsync?: FsyncMode; onRecover?: (report: RecoveryReport) => void; readOnly?: boolean }
  | ({ type: "postgres" } & PostgresStoreOptions)
  | ({ type: "redis" } & RedisStoreOptions)
  | { type: "hybrid"; hot: HistoryStoreConfig; cold: HistoryStoreConfig; recentN?: number; probeIntervalMs?: number };

/** What a store may need from its host besides its config. */
export interface HistoryStoreDeps {
  /** Where stores that can degrade and recover (hybrid) report it; context-persistent forwards to the hook bus. */
  onEvent?: (event: HybridStoreEvent) => void | Promise<void>;
  /** The drivers of the store types whose code is a separate package (postgres, redis). */
  drivers?: StoreDrivers;
}

/** Store types served by a driver package, and that package. */
export const DRIVER_PACKAGES = {
  postgres: "@amplifier-ts/store-postgres",
  redis: "@amplifier-ts/store-redis",
} as const;

export type DriverStoreType = keyof typeof DRIVER_PACKAGES;

export interface StoreDrivers {
  postgres?: HistoryStoreDriver<PostgresStoreOptions>;
  redis?: HistoryStoreDriver<RedisStoreOptions>;
}

export type HistoryStoreType = HistoryStoreConfig["type"];

type Factory<T extends HistoryStoreType> = (config: Extract<HistoryStoreConfig, { type: T }>, deps: HistoryStoreDeps) => HistoryStore;

/** One entry per type; `satisfies` makes the compiler prove none is missing. */
const FACTORIES = {
  memory: () => new MemoryStore(),
  jsonl: ({ storagePath, fsync, onRecover, readOnly }) => new JsonlStore({ storagePath, fsync, onRecover, ...(readOnly === undefined ? {} : { readOnly }) }),
  postgres: ({ type: _type, ...options }, deps) => driverOf("postgres", deps).create(options),
  redis: ({ type: _type, ...options }, deps) => driverOf("redis", deps).create(options),
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
 * Builds a store from its config, synchronously: a postgres or redis store needs its driver in
 * `deps.drivers` (loadHistoryStore() imports it for you). Nothing touches storage here: a JSONL store reports an unusable
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

/**
 * createHistoryStore, after importing the driver packages the config names (a hybrid's sides
 * included) that `deps.drivers` does not already hold. A driver that is not installed →
 * STORE_DRIVER_MISSING naming the package to install.
 */
export async function loadHistoryStore(config: HistoryStoreConfig, deps: HistoryStoreDeps = {}): Promise<HistoryStore> {
  const drivers: StoreDrivers = { ...deps.drivers };
  for (const type of driverTypesOf(config)) {
    if (drivers[type] !== undefined) continue;
    const loaded = await importDriver(type);
    (drivers as Record<DriverStoreType, HistoryStoreDriver<never>>)[type] = loaded;
  }
  return createHistoryStore(config, { ...deps, drivers });
}

/** The driver store types a config uses, its hybrid sides included; nothing for malformed configs. */
export function driverTypesOf(config: unknown): DriverStoreType[] {
  if (typeof config !== "object" || config === null) return [];
  const { type, hot, cold } = config as { type?: unknown; hot?: unknown; cold?: unknown };
  if (type === "hybrid") return [...new Set([...driverTypesOf(hot), ...driverTypesOf(cold)])];
  return typeof type === "string" && Object.hasOwn(DRIVER_PACKAGES, type) ? [type as DriverStoreType] : [];
}

async function importDriver(type: DriverStoreType): Promise<HistoryStoreDriver<never>> {
  const packageName: string = DRIVER_PACKAGES[type];
  let namespace: { driver?: HistoryStoreDriver<never> };
  try {
    namespace = (await import(packageName)) as { driver?: HistoryStoreDriver<never> };
  } catch (cause) {
    throw missingDriver(type, cause);
  }
  if (namespace.driver?.type !== type || typeof namespace.driver.create !== "function") {
    throw createError("STORE_DRIVER_MISSING", `${packageName} does not export a ${type} store driver`, {
      module: "stores",
      path: "store.type",
      expected: `export const driver = { type: "${type}", create(options) }`,
      given: namespace.driver,
    });
  }
  return namespace.driver;
}

function driverOf<T extends DriverStoreType>(type: T, deps: HistoryStoreDeps): NonNullable<StoreDrivers[T]> {
  const driver = deps.drivers?.[type];
  if (driver === undefined) throw missingDriver(type);
  return driver as NonNullable<StoreDrivers[T]>;
}

function missingDriver(type: DriverStoreType, cause?: unknown) {
  return createError("STORE_DRIVER_MISSING", `a ${type} store needs the package ${DRIVER_PACKAGES[type]}`, {
    module: "stores",
    path: "store.type",
    expected: `${DRIVER_PACKAGES[type]} installed (the amplifier-ts package includes it), passed in deps.drivers or loaded by loadHistoryStore()`,
    given: type,
    hint: `npm install ${DRIVER_PACKAGES[type]}`,
    ...(cause === undefined ? {} : { cause }),
  });
}
