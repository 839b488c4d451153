/**
 * The task store types: one line each in BUILT_IN_TASK_STORES. `postgres` is a reference to
 * @amplifier-ts/agent-stores-postgres, imported when a config first names it. A third party adds a
 * type with `taskStores.register(defineStore<TaskStore>()({ type, description, options, create }))`
 * or `{ type, package, export }`.
 */
import type { TaskStore } from "@amplifier-ts/contracts";
import { defineStore, defineStoreKind } from "@amplifier-ts/stores";
import { z } from "zod";
import { MemoryTaskStore } from "./memory-task-store.js";

export const memoryTaskStore = defineStore<TaskStore>()({
  type: "memory",
  description: "Task boards in this process (tests, development).",
  options: z.strictObject({}),
  create: () => new MemoryTaskStore(),
});

const taskKind = defineStoreKind<TaskStore>({
  noun: "task store",
  module: "store-tasks",
  exports: ["taskStore"],
  builtIns: [
    memoryTaskStore,
    { type: "postgres", package: "@amplifier-ts/agent-stores-postgres", export: "postgresTaskStore" },
  ],
  config: { id: "StoreTasksConfig", description: 'Config of store-tasks (the "tasks" capability) and of createTaskStore(). See contracts/TASKS.md.' },
  editorTitles: { memory: "MemoryTaskStoreConfig", postgres: "PostgresTaskStoreConfig" },
});

export const BUILT_IN_TASK_STORES = taskKind.builtIns;
export const TASK_STORE_KIND = taskKind.kind;
/** The task store types createTaskStore and the store-tasks module know. */
export const taskStores = taskKind.registry;
/** store-tasks's config: a registered type and, once its definition is loaded, its options. */
export const storeTasksConfigSchema = taskKind.configSchema;
/** The config for editors, from every built-in type (`packages`: the driver packages, bundled by the emitter): modules/store-tasks/schemas/. */
export const storeTasksEditorSchema = taskKind.editorSchema;

/** `{ type, …options }` of a task store: memory, postgres or a registered type. */
export type TaskStoreConfig = { type: "memory" } | { type: string; [option: string]: unknown };

/** The names the config types had when contracts generated them. */
export type StoreTasksConfig = TaskStoreConfig;
export type MemoryTaskStoreConfig = { type: "memory" };
