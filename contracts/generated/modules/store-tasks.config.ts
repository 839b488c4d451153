/* eslint-disable */
/**
 * Generated from contracts/schemas/modules/store-tasks.config.schema.json by `npm run contracts` (contracts/generate.mjs) — do not edit.
 * The schemas are emitted from their zod sources (contracts/emit-schemas.mjs): edit those and run
 * `npm run contracts`; test/contracts/generated-fresh.test.ts fails while this file is stale.
 */

/**
 * Config of store-tasks (the "tasks" capability) and of createTaskStore(). See contracts/TASKS.md.
 */
export type StoreTasksConfig = MemoryTaskStoreConfig | PostgresTaskStoreConfig;

export interface MemoryTaskStoreConfig {
  type: "memory";
}
export interface PostgresTaskStoreConfig {
  type: "postgres";
  /**
   * postgres://user@host:port/database. Default AMPLIFIER_PG_URL, else postgres://127.0.0.1:5432/test.
   */
  url?: string;
  /**
   * The schema holding the tables (created when missing). Default public.
   */
  schema?: string;
  /**
   * Prefix of the tables' names. Default amplifier.
   */
  tablePrefix?: string;
  /**
   * Connections of this store's own pool. Default 10.
   */
  poolSize?: number;
}
