import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PostgresMemoryTree } from "@amplifier-ts/agent-stores-postgres";
import { FileMemoryTree } from "../../modules/memory-tool/index.js";
import { dropSchemas, PG_URL, testSchemaName } from "../stores/postgres-support.js";
import { describeMemoryToolConformance } from "./memory-tool-conformance.js";

/**
 * The memory tool's conformance suite on both stores: the file store (a fresh folder per case,
 * whose surroundings — a sibling folder standing for the rest of the disk — must stay untouched)
 * and PostgreSQL (127.0.0.1:5432 db test, a schema per case, dropped after it).
 */
describeMemoryToolConformance("the file store", async () => {
  const dir = await mkdtemp(join(tmpdir(), "amp-memory-tool-"));
  const outside = async () => (await readdir(dir, { recursive: true })).filter((name) => !name.startsWith("agent-a") && !name.startsWith("agent-b") && !name.startsWith(".agent-")).sort();
  return { store: new FileMemoryTree({ path: join(dir, "trees") }), outside: async () => [...(await outside()), ...(await readdir(join(dir, "trees")).catch(() => []))].sort(), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

describeMemoryToolConformance("PostgreSQL", async () => {
  const schema = testSchemaName();
  return { store: new PostgresMemoryTree({ url: PG_URL, schema }), cleanup: () => dropSchemas(schema) };
});
