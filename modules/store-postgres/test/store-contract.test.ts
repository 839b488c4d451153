import { afterAll, beforeAll } from "vitest";
import { describeHistoryStoreContract } from "../../../testing/history-store-contract.js";
import { PostgresStore } from "@amplifier-ts/store-postgres";
import { startWriter } from "../../../test/stores/support.js";
import { bundlePostgresWriter, dropSchemas, PG_URL, testSchemaName } from "../../../test/stores/postgres-support.js";

/**
 * The conformance suite against the real server (127.0.0.1:5432, database test): every case gets
 * a schema of its own, dropped after; the process part runs 4 writer processes (a bundled
 * PostgresStore, test/stores/fixtures/postgres-writer.ts) on one session beside this process.
 */
const schemas: string[] = [];
let script: string;
beforeAll(async () => {
  script = await bundlePostgresWriter();
});
afterAll(() => dropSchemas(...schemas));

describeHistoryStoreContract(
  "postgres",
  async () => {
    const schema = testSchemaName();
    schemas.push(schema);
    return {
      store: new PostgresStore({ url: PG_URL, schema }),
      reopen: async () => new PostgresStore({ url: PG_URL, schema }),
      cleanup: () => dropSchemas(schema),
      storage: schema,
    };
  },
  {
    attachments: true,
    processes: {
      async spawnWriter(under, { sessionId, writer, count }) {
        const child = startWriter(script, ["append", PG_URL, String(under.storage), sessionId, String(writer), String(count)]);
        const { code } = await child.exited;
        if (code !== 0 || !child.lines.includes("done")) throw new Error(`writer ${writer} failed (exit ${code}): ${child.stderr()}`);
      },
    },
  },
);
