// @amplifier-ts/module-store-tasks: task stores (contracts/TASKS.md) — the factory, the in-memory store
// and the module that offers one as the "tasks" capability.
import type { CoordinatorContract, ModuleMeta, TaskStore } from "@amplifier-ts/contracts";
import { TASKS_CAPABILITY } from "@amplifier-ts/contracts";
import { mountStoreCapability } from "@amplifier-ts/stores";
import { loadTaskStore } from "./create-task-store.js";
import { storeTasksConfigSchema, type TaskStoreConfig } from "./task-store-types.js";

export { taskStores, TASK_STORE_KIND, BUILT_IN_TASK_STORES, memoryTaskStore, storeTasksConfigSchema, storeTasksEditorSchema, type TaskStoreConfig, type StoreTasksConfig, type MemoryTaskStoreConfig } from "./task-store-types.js";

export { MemoryTaskStore } from "./memory-task-store.js";
export { createTaskStore, loadTaskStore, TASK_STORE_TYPES, TASK_POSTGRES_DRIVER, type TaskStoreDeps, type TaskStoreDriver } from "./create-task-store.js";

export const meta: ModuleMeta = {
  name: "store-tasks",
  version: "0.1.0",
  description: 'A task store (memory or postgres) offered as the "tasks" capability.',
  configSchema: storeTasksConfigSchema,
};

/** Builds the configured store, connects it and registers it as the "tasks" capability; cleanup disconnects it. */
export async function mount(coordinator: CoordinatorContract, config: TaskStoreConfig = { type: "memory" }): Promise<TaskStore> {
  const store = await loadTaskStore(config);
  return mountStoreCapability(coordinator, TASKS_CAPABILITY, store, () => store.connect(), () => store.disconnect());
}
