import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { PostgresMemoryTree } from "@amplifier-ts/agent-stores-postgres";
import { FileMemoryTree, MemoryTool, MEMORY_LIMIT_DEFAULTS } from "../../modules/memory-tool/index.js";
import type { MemoryTreeStore } from "@amplifier-ts/contracts";
import { dropSchemas, PG_URL, testSchemaName } from "../stores/postgres-support.js";

const run = promisify(execFile);
const WORKER = fileURLToPath(new URL("./edit-worker.mjs", import.meta.url));
const PROCESSES = 4;
const ROUNDS = 15;

/**
 * Two agents editing one tree never lose an edit — as separate processes (edit-worker.mjs, on the
 * built packages), not promises of one: PROCESSES processes each insert ROUNDS lines into one file
 * and move one shared counter ROUNDS times with str_replace from the value they last read. Every
 * line must be there and the counter must equal every increment made: a lost update would leave a
 * line out or the counter short. Refused str_replaces (another process moved the counter first)
 * are counted — the documented "No replacement was performed" is the tool's compare-and-swap.
 */
describe.each([
  ["the file store", async () => {
    const dir = await mkdtemp(join(tmpdir(), "amp-memory-procs-"));
    return { where: dir, store: new FileMemoryTree({ path: dir }) as MemoryTreeStore, cleanup: () => rm(dir, { recursive: true, force: true }), backend: "file" };
  }],
  ["PostgreSQL", async () => {
    const schema = testSchemaName();
    return { where: schema, store: new PostgresMemoryTree({ url: PG_URL, schema }) as MemoryTreeStore, cleanup: () => dropSchemas(schema), backend: "postgres" };
  }],
])("processes sharing one tree on %s", (_name, setup) => {
  it(`${PROCESSES} processes × ${ROUNDS} inserts and counter moves: no edit lost`, async () => {
    const { where, store, cleanup, backend } = await setup();
    try {
      const tool = new MemoryTool({ store, limits: MEMORY_LIMIT_DEFAULTS, tree: () => "shared" });
      expect((await tool.execute({ command: "create", path: "/memories/log.md", file_text: "" })).isError).toBeUndefined();
      expect((await tool.execute({ command: "create", path: "/memories/counter.md", file_text: "count: 0\n" })).isError).toBeUndefined();
      const workers = await Promise.all(
        Array.from({ length: PROCESSES }, (_, id) => run(process.execPath, [WORKER, backend, where, PG_URL, `w${id}`, String(ROUNDS)], { timeout: 240_000 })),
      );
      const reports = workers.map((worker) => JSON.parse(worker.stdout) as { id: string; increments: number; conflicts: number });
      expect(reports.map((r) => r.increments)).toEqual(Array.from({ length: PROCESSES }, () => ROUNDS));
      expect(await store.read("shared", "counter.md")).toBe(`count: ${PROCESSES * ROUNDS}\n`);
      const lines = (await store.read("shared", "log.md"))!.split("\n").filter(Boolean).sort();
      const expected = Array.from({ length: PROCESSES }, (_, id) => Array.from({ length: ROUNDS }, (_, round) => `w${id}-${round}`)).flat().sort();
      expect(lines).toEqual(expected);
    } finally {
      await store.disconnect();
      await cleanup();
    }
  });
});
