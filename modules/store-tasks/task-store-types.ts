/**
 * The task store types: one line each in BUILT_IN_TASK_STORES. `postgres` is a reference to
 * @amplifier-ts/agent-stores-postgres, imported when a config first names it. A third party adds a
 * type with `taskStores.register(defineStore<TaskStore>()({ type, description, options, create }))`
 * or `{ type, package, export }`.
 */
import type { TaskStore } from "@amplifier-ts/contracts";
import { defineStore, editorConfigSchema, registryConfigSchema, StoreRegistry, type StoreEntry, type StoreKind } from "@amplifier-ts/stores";
import { z } from "zod";
import { MemoryTaskStore } from "./memory-task-store.js";

export const memoryTaskStore = defineStore<TaskStore>()({
  type: "memory",
  description: "Task boards in this process (tests, development).",
  options: z.strictObject({}),
  create: () => new MemoryTaskStore(),
});

export const BUILT_IN_TASK_STORES: readonly StoreEntry<TaskStore>[] = Object.freeze([
  memoryTaskStore,
  { type: "postgres", package: "@amplifier-ts/agent-stores-postgres", export: "postgresTaskStore" },
]);

export const TASK_STORE_KIND: StoreKind = Object.freeze({ noun: "task store", module: "store-tasks", path: "config", exports: Object.freeze(["taskStore"]) });

/** The task store types createTaskStore and the store-tasks module know. */
export const taskStores = new StoreRegistry<TaskStore>(TASK_STORE_KIND, BUILT_IN_TASK_STORES);

const META = { id: "StoreTasksConfig", title: "StoreTasksConfig", description: 'Config of store-tasks (the "tasks" capability) and of createTaskStore(). See contracts/TASKS.md.' };

/** store-tasks's config: a registered type and, once its definition is loaded, its options. */
export const storeTasksConfigSchema = registryConfigSchema(taskStores, META);

/** The config for editors, from every built-in type (`packages`: the driver packages, bundled by the emitter): modules/store-tasks/schemas/. */
export function storeTasksEditorSchema(packages: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {}) {
  return editorConfigSchema(taskStores, { memory: "MemoryTaskStoreConfig", postgres: "PostgresTaskStoreConfig" }, META, packages);
}

/** `{ type, …options }` of a task store: memory, postgres or a registered type. */
export type TaskStoreConfig = { type: "memory" } | { type: string; [option: string]: unknown };

/** The names the config types had when contracts generated them. */
export type StoreTasksConfig = TaskStoreConfig;
export type MemoryTaskStoreConfig = { type: "memory" };
