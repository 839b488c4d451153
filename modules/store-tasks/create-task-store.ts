import type { TaskStore, TaskStoreConfig, PostgresTaskStoreOptions, StoreDriver, StoreDriverSource } from "@amplifier-ts/contracts";
import { createError, describeValue, importStoreDriver, storeDriverMissing } from "@amplifier-ts/contracts";
import { MemoryTaskStore } from "./memory-task-store.js";

export type TaskStoreDriver = StoreDriver<PostgresTaskStoreOptions, TaskStore>;

export interface TaskStoreDeps {
  drivers?: { postgres?: TaskStoreDriver };
}

export const TASK_STORE_TYPES = ["memory", "postgres"] as const;

export const TASK_POSTGRES_DRIVER: StoreDriverSource = { kind: "tasks", type: "postgres", packageName: "@amplifier-ts/agent-stores-postgres", exportName: "taskDriver" };

/**
 * Builds a task store (contracts/TASKS.md), synchronously: memory, or postgres with its driver in
 * `deps.drivers` (loadTaskStore() imports it; amplifier-ts/stores passes it). UNKNOWN_STORE,
 * INVALID_ARGUMENT, STORE_DRIVER_MISSING as createBlobStore.
 */
export function createTaskStore(config: TaskStoreConfig, deps: TaskStoreDeps = {}): TaskStore {
  if (typeOf(config) === "memory") return new MemoryTaskStore();
  const driver = deps.drivers?.postgres;
  if (driver === undefined) throw storeDriverMissing(TASK_POSTGRES_DRIVER);
  const { type: _type, ...options } = config as Extract<TaskStoreConfig, { type: "postgres" }>;
  return driver.create(options);
}

export async function loadTaskStore(config: TaskStoreConfig, deps: TaskStoreDeps = {}): Promise<TaskStore> {
  if (typeOf(config) === "postgres" && deps.drivers?.postgres === undefined) {
    return createTaskStore(config, { drivers: { postgres: await importStoreDriver<TaskStoreDriver>(TASK_POSTGRES_DRIVER) } });
  }
  return createTaskStore(config, deps);
}

function typeOf(config: unknown): (typeof TASK_STORE_TYPES)[number] {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw createError("INVALID_ARGUMENT", "a task store config must be an object with a type", { module: "store-tasks", path: "config", expected: '{ type: "memory" | "postgres", … }', given: config });
  }
  const type = (config as { type?: unknown }).type;
  if (typeof type !== "string" || !(TASK_STORE_TYPES as readonly string[]).includes(type)) {
    throw createError("UNKNOWN_STORE", `no task store of type ${describeValue(type)}`, { module: "store-tasks", path: "config.type", expected: `one of ${TASK_STORE_TYPES.join(", ")}`, given: type });
  }
  return type as (typeof TASK_STORE_TYPES)[number];
}
