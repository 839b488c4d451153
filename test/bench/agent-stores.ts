/**
 * Scenario agent-stores — the blob, graph and task stores (issue 18) in memory, on files and on the
 * machine's PostgreSQL (AMPLIFIER_PG_URL, else postgres://postgres@127.0.0.1:5432/test; a schema
 * of its own, dropped at the end). No targets in the issue: every figure is INFO.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { BlobStore, GraphStore, TaskStore } from "../../contracts/index.js";
import { createBlobStore, createGraphStore, createTaskStore } from "../../src/stores.js";
import { count, distribution, ms } from "./measure.js";
import { check, type BenchContext, type Check, type Scenario, type ScenarioResult, type Table } from "./scenario.js";

const URL_ = process.env.AMPLIFIER_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function timed<T>(fn: () => Promise<T>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function median(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await timed(fn));
  return distribution(samples).median;
}

export const agentStoresScenario: Scenario = {
  id: "agent-stores",
  data: { short: "ours: synthetic blobs, graphs, tasks", detail: "ours — random bytes, graphs and task lists made by the scenario (no outside data)" },
  title: "Agent stores: blobs (memory, file, PostgreSQL), graph walks, contended task retries",
  method:
    "**Blobs**: a 16 MiB blob uploaded then downloaded (median of 5, MB/s), and 4 KiB uploads one after another (latency per call), per store; PostgreSQL with 1 MiB chunks. " +
    "**Graph**: a random graph of `n` entities and 3·n relationships (4 types), `getNeighbors` from 50 random starts at depth 1, 2 and 3 (latency per call; mean entities reached). " +
    "**Tasks**: 1 list, 1 task with maxRetries 1,000; 8 callers × 250 `incrementRetry` at once (the calls past 1,000 answer false) — in memory, then over 4 PostgreSQL stores with their own pools (retries/s; the count must equal the calls); then single `updateStatus` latency.",
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const quick = ctx.options.quick;
    const schema = `amp_bench_${randomBytes(4).toString("hex")}`;
    const folder = await mkdtemp(join(tmpdir(), "amp-bench-blobs-"));
    const checks: Check[] = [];
    const tables: Table[] = [];
    const open: Array<{ disconnect(): Promise<void> }> = [];
    const track = <S extends { disconnect(): Promise<void> }>(store: S): S => (open.push(store), store);
    try {
      // --- blobs --------------------------------------------------------------------------
      const big = new Uint8Array(16 * 1024 * 1024);
      for (let o = 0; o < big.length; o += 65536) big.set(randomBytes(65536), o);
      const smallCount = quick ? 200 : 1_000;
      const blobRows: string[][] = [];
      const blobStores: Array<[string, BlobStore]> = [
        ["memory", track(createBlobStore({ type: "memory" }))],
        ["file", track(createBlobStore({ type: "file", path: folder }))],
        ["postgres", track(createBlobStore({ type: "postgres", url: URL_, schema }))],
      ];
      for (const [name, store] of blobStores) {
        ctx.log(`agent-stores: blobs on ${name}`);
        await store.connect();
        const up = await median(5, () => store.upload("big.bin", big, "application/octet-stream"));
        const down = await median(5, () => store.download("big.bin"));
        const small = new Uint8Array(4096).fill(1);
        const latencies: number[] = [];
        for (let i = 0; i < smallCount; i++) latencies.push(await timed(() => store.upload(`small/${i}`, small, "application/octet-stream")));
        const d = distribution(latencies);
        blobRows.push([name, `${((big.length / 1048576) / (up / 1000)).toFixed(0)} MB/s (${ms(up)})`, `${((big.length / 1048576) / (down / 1000)).toFixed(0)} MB/s (${ms(down)})`, ms(d.median), ms(d.p99)]);
        checks.push(check(`blobs ${name}: 16 MiB upload / download`, `${ms(up)} / ${ms(down)}`, "—", undefined));
      }
      tables.push({ title: "Blobs", columns: ["store", "16 MiB upload", "16 MiB download", `4 KiB upload p50 (${count(smallCount)})`, "p99"], rows: blobRows });

      // --- graph --------------------------------------------------------------------------
      const n = quick ? 2_000 : 10_000;
      const graphRows: string[][] = [];
      const random = (k: number) => Math.floor(Math.random() * k);
      const edges = Array.from({ length: 3 * n }, (_, i) => ({ id: `r${i}`, from: `e${random(n)}`, to: `e${random(n)}`, type: `t${i % 4}` }));
      const starts = Array.from({ length: 50 }, () => `e${random(n)}`);
      const graphStores: Array<[string, GraphStore]> = [
        ["memory", track(createGraphStore({ type: "memory" }))],
        ["postgres", track(createGraphStore({ type: "postgres", url: URL_, schema }))],
      ];
      for (const [name, store] of graphStores) {
        ctx.log(`agent-stores: graph of ${count(n)} entities on ${name}`);
        await store.connect();
        if (name === "postgres") await bulkGraph(schema, n, edges);
        else {
          for (let i = 0; i < n; i++) await store.addEntity({ id: `e${i}`, type: "node" });
          for (const e of edges) await store.addRelationship(e);
        }
        for (const depth of [1, 2, 3]) {
          const latencies: number[] = [];
          let reached = 0;
          for (const start of starts) {
            const t0 = performance.now();
            reached += (await store.getNeighbors(start, { depth })).entities.length;
            latencies.push(performance.now() - t0);
          }
          const d = distribution(latencies);
          graphRows.push([name, String(depth), count(Math.round(reached / starts.length)), ms(d.median), ms(d.p99)]);
        }
      }
      tables.push({ title: `Graph: getNeighbors on ${count(n)} entities, ${count(3 * n)} relationships`, columns: ["store", "depth", "entities reached (mean)", "p50", "p99"], rows: graphRows });

      // --- tasks --------------------------------------------------------------------------
      const taskRows: string[][] = [];
      const callers = 8;
      const perCaller = quick ? 100 : 250;
      const memoryTasks = track(createTaskStore({ type: "memory" }));
      const pgTasks = Array.from({ length: 4 }, () => track(createTaskStore({ type: "postgres", url: URL_, schema, poolSize: 3 })));
      for (const [name, stores] of [["memory", [memoryTasks]], ["postgres (4 pools)", pgTasks]] as Array<[string, TaskStore[]]>) {
        ctx.log(`agent-stores: contended incrementRetry on ${name}`);
        const list = await stores[0]!.createTaskList({ conversationId: "bench", agentId: name, tasks: [{ title: "hot", maxRetries: 1_000 }] });
        await stores[0]!.incrementRetry(list.id, list.tasks[0]!.id); // warm-up (and migrations)
        const t0 = performance.now();
        await Promise.all(Array.from({ length: callers }, async (_, c) => {
          for (let i = 0; i < perCaller; i++) await stores[c % stores.length]!.incrementRetry(list.id, list.tasks[0]!.id);
        }));
        const elapsed = performance.now() - t0;
        const final = (await stores[0]!.getTaskList("bench", name))!.tasks[0]!.retries;
        const expected = Math.min(1_000, 1 + callers * perCaller);
        const latencies: number[] = [];
        for (let i = 0; i < (quick ? 100 : 500); i++) latencies.push(await timed(() => stores[0]!.updateStatus(list.id, list.tasks[0]!.id, i % 2 ? "in_progress" : "pending")));
        taskRows.push([name, `${count(Math.round((callers * perCaller) / (elapsed / 1000)))}/s`, `${final} of ${expected}`, ms(distribution(latencies).median)]);
        checks.push(check(`tasks ${name}: contended incrementRetry never exceeds maxRetries`, `${final} retries`, `= ${expected}`, final === expected));
      }
      tables.push({ title: `Tasks: ${callers} callers × ${perCaller} incrementRetry on one task`, columns: ["store", "incrementRetry", "retries counted", "updateStatus p50"], rows: taskRows });
      return { checks, tables, notes: ["Loopback PostgreSQL with synchronous_commit on; the machine is shared (load from other work), so figures move between runs."] };
    } finally {
      for (const store of open) await store.disconnect().catch(() => undefined);
      await rm(folder, { recursive: true, force: true });
      const client = new pg.Client({ connectionString: URL_ });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  },
};

/** The PostgreSQL graph is loaded with two INSERT … SELECT unnest statements (the store's tables, created by its first use). */
async function bulkGraph(schema: string, n: number, edges: ReadonlyArray<{ id: string; from: string; to: string; type: string }>): Promise<void> {
  const client = new pg.Client({ connectionString: URL_ });
  await client.connect();
  try {
    await client.query(`INSERT INTO "${schema}".amplifier_graph_entities (id, type, properties) SELECT 'e' || i, 'node', '{}'::json FROM generate_series(0, $1 - 1) AS i`, [n]);
    await client.query(
      `INSERT INTO "${schema}".amplifier_graph_relationships (id, from_id, to_id, type, properties) SELECT * , '{}'::json FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])`,
      [edges.map((e) => e.id), edges.map((e) => e.from), edges.map((e) => e.to), edges.map((e) => e.type)],
    );
    await client.query(`ANALYZE "${schema}".amplifier_graph_entities`);
    await client.query(`ANALYZE "${schema}".amplifier_graph_relationships`);
  } finally {
    await client.end();
  }
}
