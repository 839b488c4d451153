import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeMemoryContract } from "../../testing/memory-contract.js";
import { PostgresMemory } from "../../modules/memory-postgres/index.js";
import { isAmplifierError } from "../../contracts/index.js";
import { bundleMemoryWriter, PG_URL, uniqueName, writerSpawner } from "./memory-support.js";

/**
 * The memory contract against the real server (127.0.0.1:5432, database test): each case gets a
 * schema of its own, dropped after; the process part runs 3 writer processes on one session.
 */
const schemas: string[] = [];
let script = "";
beforeAll(async () => {
  script = await bundleMemoryWriter();
});
afterAll(async () => {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

describeMemoryContract(
  "memory-postgres",
  async (limits) => {
    const schema = uniqueName("amp_mem_");
    schemas.push(schema);
    return { memory: new PostgresMemory({ url: PG_URL, schema, ...limits }), storage: schema };
  },
  { spawnWriter: (under, job) => writerSpawner(script, "postgres", PG_URL)(under, job) },
);

it("two memories on one schema are one memory (replicas see each other's sessions and events)", async () => {
  const schema = uniqueName("amp_mem_");
  schemas.push(schema);
  const a = new PostgresMemory({ url: PG_URL, schema });
  const b = new PostgresMemory({ url: PG_URL, schema });
  const id = await a.createSession({ appName: "agent", userId: "u" });
  await b.addEvent(id, b.createEvent("user_message", "from b"));
  expect((await a.getSessionEvents(id)).map((e) => e.content)).toEqual(["from b"]);
  await Promise.all([a.close(), b.close()]);
});

it("a server that cannot be reached is STORAGE_UNAVAILABLE for reads, naming the server", async () => {
  const memory = new PostgresMemory({ url: "postgres://nobody@127.0.0.1:1/test" });
  const error = await memory.listSessions().catch((e: unknown) => e);
  expect(isAmplifierError(error, "STORAGE_UNAVAILABLE")).toBe(true);
  expect(String((error as Error).message)).toContain("127.0.0.1:1");
  await memory.close();
});
