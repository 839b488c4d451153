import type { CoordinatorContract } from "../coordinator.js";
import { createError } from "../errors.js";
import type { VectorStore } from "../search.js";
import type { BlobStore } from "./blob-store.js";
import type { GraphStore } from "./graph-store.js";
import type { TaskStore } from "./task-store.js";

/**
 * The stores a session offers its tools as coordinator capabilities (configured under "stores"
 * in amplifier.config.json; contracts/MODULES.md). A tool reads them with
 * `coordinator.getCapability<BlobStore>(BLOBS_CAPABILITY)` or the typed helpers below.
 */
export const BLOBS_CAPABILITY = "blobs";
export const GRAPH_CAPABILITY = "graph";
export const TASKS_CAPABILITY = "tasks";
export const VECTORS_CAPABILITY = "vectors";

export interface StoreCapabilities {
  blobs: BlobStore;
  graph: GraphStore;
  tasks: TaskStore;
  vectors: VectorStore;
}

export type StoreCapabilityName = keyof StoreCapabilities;

/** The session's store of that kind, or undefined when none is configured. */
export function storeOf<K extends StoreCapabilityName>(coordinator: Pick<CoordinatorContract, "getCapability">, name: K): StoreCapabilities[K] | undefined {
  return coordinator.getCapability<StoreCapabilities[K]>(name);
}

/** The session's store of that kind; INVALID_ARGUMENT saying how to configure it when there is none. */
export function requireStore<K extends StoreCapabilityName>(coordinator: Pick<CoordinatorContract, "getCapability">, name: K): StoreCapabilities[K] {
  const store = storeOf(coordinator, name);
  if (store !== undefined) return store;
  throw createError("INVALID_ARGUMENT", `this session has no "${name}" store`, {
    path: `stores.${name}`,
    expected: `a "${name}" capability: "stores": { "${name}": { "module": "store-${name}", "config": { "type": "memory" } } } in amplifier.config.json`,
    given: undefined,
  });
}

/**
 * What every store module's mount() does: connect the store (a misconfigured server fails the
 * mount, not the first tool call), offer it as the capability, and at cleanup take the capability
 * back and disconnect — in that order (cleanups run last-registered first), so no tool reaches a
 * disconnected store. The disconnect is registered before connecting: a failed connect is rolled back too.
 */
export async function mountStoreCapability<K extends StoreCapabilityName>(
  coordinator: CoordinatorContract,
  name: K,
  store: StoreCapabilities[K],
  connect: () => Promise<void>,
  disconnect: () => Promise<void>,
): Promise<StoreCapabilities[K]> {
  coordinator.registerCleanup(disconnect);
  await connect();
  coordinator.registerCleanup(coordinator.registerCapability(name, store));
  return store;
}

/** The package that carries a store type's driver, and the export that holds it. */
export interface StoreDriverSource {
  kind: string;
  type: string;
  packageName: string;
  exportName: string;
}

/**
 * Imports a driver (`{ type, create(options) }`) from its package, the way the history stores'
 * drivers are loaded: a package that is not installed, or that does not export the driver, is
 * STORE_DRIVER_MISSING naming the package to install.
 */
export async function importStoreDriver<D extends { type: string; create: (...args: never[]) => unknown }>(source: StoreDriverSource): Promise<D> {
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(source.packageName)) as Record<string, unknown>;
  } catch (cause) {
    throw storeDriverMissing(source, cause);
  }
  const driver = namespace[source.exportName] as Partial<D> | undefined;
  if (driver?.type !== source.type || typeof driver.create !== "function") {
    throw createError("STORE_DRIVER_MISSING", `${source.packageName} does not export a ${source.type} ${source.kind} store driver`, {
      module: `store-${source.kind}`,
      path: "type",
      expected: `export const ${source.exportName} = { type: "${source.type}", create(options) }`,
      given: driver,
    });
  }
  return driver as D;
}

export function storeDriverMissing(source: StoreDriverSource, cause?: unknown) {
  return createError("STORE_DRIVER_MISSING", `a ${source.type} ${source.kind} store needs the package ${source.packageName}`, {
    module: `store-${source.kind}`,
    path: "type",
    expected: `${source.packageName} installed (the amplifier-ts package includes it), passed in deps.drivers or loaded by the async load…Store()`,
    given: source.type,
    hint: `npm install ${source.packageName}`,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** A driver package's export for one store type: what the factories call for `{ type, …options }`. */
export interface StoreDriver<Options, Store> {
  readonly type: string;
  create(options: Options): Store;
}
