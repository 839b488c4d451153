import { afterAll } from "vitest";
import { describeHistoryStoreContract } from "../../contracts/testing/history-store-contract.js";
import { PostgresStore } from "../../modules/stores/index.js";
import { dropSchemas, PG_URL, testSchemaName } from "./postgres-support.js";

/** The conformance suite against the real server: every case gets a schema of its own, dropped after. */
const schemas: string[] = [];
afterAll(() => dropSchemas(...schemas));

describeHistoryStoreContract("postgres", async () => {
  const schema = testSchemaName();
  schemas.push(schema);
  return {
    store: new PostgresStore({ url: PG_URL, schema }),
    reopen: async () => new PostgresStore({ url: PG_URL, schema }),
    cleanup: () => dropSchemas(schema),
  };
});
