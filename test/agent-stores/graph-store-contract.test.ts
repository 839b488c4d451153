import { describeGraphStoreContract } from "../../testing/graph-store-contract.js";
import { createGraphStore } from "../../src/stores.js";
import { dropSchemas, PG_URL, testSchemaName } from "../stores/postgres-support.js";

/** The GraphStore contract on memory and PostgreSQL (127.0.0.1:5432 db test, a schema per case). */
describeGraphStoreContract("memory", async () => ({ store: createGraphStore({ type: "memory" }) }));

describeGraphStoreContract(
  "postgres",
  async () => {
    const schema = testSchemaName();
    return { store: createGraphStore({ type: "postgres", url: PG_URL, schema, poolSize: 2 }), cleanup: () => dropSchemas(schema) };
  },
  // Each random case builds its graph in a fresh schema: capped so CI's 10,000 runs stay minutes, not hours.
  { maxPropertyRuns: 150 },
);
