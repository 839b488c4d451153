import type { TaskStore, StoreDriver } from "@amplifier-ts/contracts";
import type { StoreDriverSource } from "@amplifier-ts/stores";
import { taskStores, type TaskStoreConfig } from "./task-store-types.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type TaskStoreDriver = StoreDriver<any, TaskStore>;

export interface TaskStoreDeps {
  /** Drivers by type that win over the registry's (loadTaskStore() imports the postgres one). */
  drivers?: { readonly [type: string]: TaskStoreDriver | undefined };
}

/** The built-in types (the registry's, in its order). */
export const TASK_STORE_TYPES = Object.freeze(taskStores.types()) as readonly string[];

export const TASK_POSTGRES_DRIVER: StoreDriverSource = { kind: "tasks", type: "postgres", packageName: "@amplifier-ts/agent-stores-postgres", exportName: "taskDriver" };

/**
 * Builds a task store (contracts/TASKS.md), synchronously: memory, postgres or a registered type — a
 * type whose package is not loaded yet needs its driver in `deps.drivers` (loadTaskStore() imports
 * it; amplifier-ts/stores passes it). UNKNOWN_STORE, INVALID_ARGUMENT, STORE_DRIVER_MISSING as createBlobStore.
 */
export function createTaskStore(config: TaskStoreConfig, deps: TaskStoreDeps = {}): TaskStore {
  return taskStores.create(config, deps.drivers ? { drivers: deps.drivers } : {});
}

export async function loadTaskStore(config: TaskStoreConfig, deps: TaskStoreDeps = {}): Promise<TaskStore> {
  return taskStores.load(config, deps.drivers ? { drivers: deps.drivers } : {});
}
