import type { HistoryStore, RecoveryReport } from "@amplifier-ts/contracts";
import type { FsyncMode } from "./jsonl-store.js";
import type { AnyHistoryStoreDefinition, HistoryStoreDriver } from "./history-store-definition.js";
import type { HybridStoreEvent } from "./hybrid-store.js";
import { BUILT_IN_HISTORY_STORES, builtInHistoryStores } from "./built-in-history-stores.js";
import type { HistoryStoreRegistry } from "./history-store-registry.js";

/**
 * Which HistoryStore to build; the `type` picks it from the registry. The built-in types without a
 * driver package are spelled out for editors; every other type (postgres, redis, a registered
 * one) is `{ type, …options }`, its options checked by its definition's schema.
 */
export type HistoryStoreConfig =
  | { type: "memory" }
  | { type: "jsonl"; storagePath?: string; fsync?: FsyncMode; onRecover?: (report: RecoveryReport) => void; readOnly?: boolean }
  | { type: "hybrid"; hot: HistoryStoreConfig; cold: HistoryStoreConfig; recentN?: number; probeIntervalMs?: number }
  | { type: string; [option: string]: unknown };

/** Drivers by type, given by a caller; they win over the registry's (options still checked by its schema when loaded). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type StoreDrivers = Readonly<Record<string, HistoryStoreDriver<any> | undefined>>;

/** What a store may need from its host besides its config. */
export interface HistoryStoreDeps {
  /** Where stores that can degrade and recover (hybrid) report it; context-persistent forwards to the hook bus. */
  onEvent?: (event: HybridStoreEvent) => void | Promise<void>;
  /** Drivers of types whose code is a separate package (postgres, redis), when the caller holds them. */
  drivers?: StoreDrivers;
  /** Definitions by type, when the caller holds them (they win over drivers and the registry's). */
  definitions?: Readonly<Record<string, AnyHistoryStoreDefinition | undefined>>;
  /** The registry to resolve types in. Default the built-in catalogue. */
  registry?: HistoryStoreRegistry;
}

/** Store types served by a driver package, and that package (from the built-in list). */
export const DRIVER_PACKAGES: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(BUILT_IN_HISTORY_STORES.flatMap((entry) => ("package" in entry ? [[entry.type, entry.package]] : []))),
);

export type DriverStoreType = string;

// eslint-disable-next-line @typescript-eslint/ban-types
export type HistoryStoreType = "memory" | "jsonl" | "postgres" | "redis" | "hybrid" | (string & {});

/** The built-in types, in the built-in list's order. */
export const HISTORY_STORE_TYPES: readonly HistoryStoreType[] = Object.freeze(builtInHistoryStores.types());

/**
 * Builds a store from its config, synchronously: a type whose definition is in a package not yet
 * loaded (postgres, redis) needs it in `deps.drivers` (loadHistoryStore() imports it for you).
 * Nothing touches storage here: a JSONL store reports an unusable folder (STORAGE_UNAVAILABLE)
 * when a session is first opened, which is where a context module decides to fall back to memory.
 * Unknown types → UNKNOWN_STORE; bad options → INVALID_ARGUMENT.
 */
export function createHistoryStore(config: HistoryStoreConfig, deps: HistoryStoreDeps = {}): HistoryStore {
  return (deps.registry ?? builtInHistoryStores).create(config, buildOptions(deps));
}

/**
 * createHistoryStore, after importing the driver packages the config names (a hybrid's sides
 * included) that `deps.drivers` does not already hold. A driver that is not installed →
 * STORE_DRIVER_MISSING naming the package to install.
 */
export async function loadHistoryStore(config: HistoryStoreConfig, deps: HistoryStoreDeps = {}): Promise<HistoryStore> {
  return (deps.registry ?? builtInHistoryStores).load(config, buildOptions(deps));
}

/** The driver store types a config uses, its hybrid sides included; nothing for malformed configs. */
export function driverTypesOf(config: unknown): DriverStoreType[] {
  return builtInHistoryStores.packageTypesOf(config);
}

function buildOptions(deps: HistoryStoreDeps) {
  return { ...(deps.onEvent ? { services: { onEvent: deps.onEvent } } : {}), ...(deps.drivers ? { drivers: deps.drivers } : {}), ...(deps.definitions ? { definitions: deps.definitions } : {}) };
}
