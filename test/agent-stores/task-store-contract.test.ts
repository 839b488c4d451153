import { describeTaskStoreContract } from "../../testing/task-store-contract.js";
import { createTaskStore } from "../../src/stores.js";
import { dropSchemas, PG_URL, testSchemaName } from "../stores/postgres-support.js";

/**
 * The TaskStore contract on memory and PostgreSQL (127.0.0.1:5432 db test, a schema per case). The
 * PostgreSQL peers are separate stores, each with its own pool of 3 connections: the concurrency
 * cases run their 50 callers over 4 pools, as 4 processes would.
 */
describeTaskStoreContract("memory", async () => ({ store: createTaskStore({ type: "memory" }) }));

describeTaskStoreContract("postgres", async () => {
  const schema = testSchemaName();
  const open = () => createTaskStore({ type: "postgres", url: PG_URL, schema, poolSize: 3 });
  return { store: open(), peer: open, cleanup: () => dropSchemas(schema) };
});
