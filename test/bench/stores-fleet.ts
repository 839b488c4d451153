/**
 * Scenario stores-fleet (issue 20, scale-out): a fleet of worker processes sharing sessions on
 * one backend — PostgreSQL (the machine's server, a schema of its own, dropped after), one Redis
 * server (the machine's, a key prefix of its own, deleted after) and a Redis Cluster of three
 * primaries + three replicas this scenario starts on free loopback ports (test/stores/redis-cluster.ts)
 * and removes. For 1, 4 and 8 writer processes: total appends/s (each worker awaits each append
 * on its own session for a fixed time, all starting together), and the resume time of a
 * pre-written session (a store in this process reads it whole while the writers run).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { createClient } from "redis";
import type { HistoryStore } from "../../contracts/history-store.js";
import { PostgresStore, RedisStore } from "../../src/modules/stores.js";
import { dropClusterPrefix, startRedisCluster, type RedisClusterHandle } from "../stores/redis-cluster.js";
import { spawn } from "node:child_process";
import { reportToParent } from "./child.js";
import { count, distribution, ms } from "./measure.js";
import { chatMessages } from "./store-workload.js";
import { check, type BenchContext, type Scenario, type ScenarioResult } from "./scenario.js";

const REDIS = process.env.AMPLIFIER_REDIS_URL ?? "redis://127.0.0.1:6379";
const PG = process.env.AMPLIFIER_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const WRITERS = [1, 4, 8];
const RESUME_RUNS = 5;

type Backend = "postgres" | "redis" | "redis-cluster" | "redis-cluster-wait";

/** What a child needs to open the store: the backend and where. */
interface StoreSpec {
  backend: Backend;
  url: string;
  /** PostgreSQL schema, or Redis key prefix. */
  space: string;
}

function openStore(spec: StoreSpec): HistoryStore {
  if (spec.backend === "postgres") return new PostgresStore({ url: spec.url, schema: spec.space });
  return new RedisStore({ url: spec.url, keyPrefix: spec.space, ...(spec.backend === "redis-cluster-wait" ? { waitForReplicas: { replicas: 1, timeoutMs: 1_000 } } : {}) });
}

interface ChildResult {
  appends: number;
  elapsedMs: number;
  p50: number;
  p99: number;
}

/**
 * `--child stores-fleet <spec json> <session> <durationMs>`: connects, appends once, prints READY,
 * waits for GO on stdin (the parent sends it when every writer is ready), then appends to its
 * session for durationMs.
 */
export async function fleetChild(args: string[]): Promise<void> {
  const [specJson, session, durationText] = args;
  const spec = JSON.parse(specJson!) as StoreSpec;
  const store = openStore(spec);
  const messages = chatMessages(512);
  await store.open(session!);
  await store.append(session!, messages[0]!); // connected, schema checked
  const go = new Promise<void>((resolve) => {
    process.stdin.setEncoding("utf8").on("data", (d: string) => {
      if (d.includes("GO")) resolve();
    });
  });
  process.stdout.write("READY\n");
  await go;
  process.stdin.pause();
  const end = Date.now() + Number(durationText);
  const samples: number[] = [];
  const t0 = performance.now();
  for (let i = 1; Date.now() < end; i++) {
    // A fresh id per append: the workload repeats every 512 messages, and a stored id would make the append a no-op (idempotent appends).
    const base = messages[i % messages.length]!;
    const message = { ...base, metadata: { ...base.metadata, id: `f${i}` } };
    const s0 = performance.now();
    await store.append(session!, message);
    samples.push(performance.now() - s0);
  }
  const elapsedMs = performance.now() - t0;
  await store.close();
  const d = distribution(samples);
  reportToParent({ appends: samples.length, elapsedMs, p50: d.median, p99: d.p99 } satisfies ChildResult);
}

interface Row {
  backend: Backend;
  writers: number;
  appendsPerSecond: number;
  p50: number;
  p99: number;
  resumeMedianMs: number;
  resumeIdleMs: number;
}

export const fleetScenario: Scenario = {
  id: "stores-fleet",
  data: { short: "ours: synthetic messages", detail: "ours — chat-sized messages written by the scenario (no outside data)" },
  title: "A fleet of writer processes on PostgreSQL, one Redis and a Redis Cluster: appends/s and resume",
  method:
    "For each backend and 1, 4, 8 writer processes (each its own session, one `append` awaited at a time, all starting at one instant, for a fixed time): total appends/s = all acknowledged appends / the window; latency p50/p99 across writers. " +
    "**Resume**: while the writers run, this process reads a pre-written session (`open()` on a store whose connection is already up; chat-sized messages) — median of 5; `idle` is the same with no writer. " +
    "Backends: PostgreSQL on the machine's server (synchronous_commit on, a pool per process), the machine's single Redis (nothing on disk), and a private Redis Cluster of 3 primaries + 3 replicas on loopback (appendonly everysec), once as is (`redis-cluster`: replication asynchronous) and once with `waitForReplicas: { replicas: 1 }` (`redis-cluster-wait`: every acknowledged append is on a replica too — the setting the failover test proves). " +
    "All on the same 2-core machine: the cluster's six servers, the writers and this process share two cores, so the cluster cannot show more throughput than one server here; it shows what the hash-tagged layout, routing and replica acknowledgements cost.",
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const quick = ctx.options.quick;
    const durationMs = quick ? 2_000 : 5_000;
    const resumeSize = quick ? 2_000 : 10_000;
    const tag = randomBytes(4).toString("hex");
    const schema = `amp_fleet_${tag}`;
    const prefix = `amp_fleet_${tag}:`;
    ctx.log("stores-fleet: starting a Redis Cluster (3 primaries + 3 replicas)");
    const cluster: RedisClusterHandle = await startRedisCluster();
    const specs: StoreSpec[] = [
      { backend: "postgres", url: PG, space: schema },
      { backend: "redis", url: REDIS, space: prefix },
      { backend: "redis-cluster", url: cluster.url, space: prefix },
      { backend: "redis-cluster-wait", url: cluster.url, space: `${prefix}w:` },
    ];
    const rows: Row[] = [];
    try {
      for (const spec of specs) {
        const reader = openStore(spec);
        try {
          await reader.open("resume");
          const history = chatMessages(resumeSize);
          for (let i = 0; i < history.length; i += 1_000) await reader.appendMany("resume", history.slice(i, i + 1_000));
          const resumeOnce = async () => {
            const t0 = performance.now();
            const { messages } = await reader.open("resume");
            const t = performance.now() - t0;
            if (messages.length !== resumeSize) throw new Error(`resume read ${messages.length} of ${resumeSize}`);
            return t;
          };
          await resumeOnce();
          const idle: number[] = [];
          for (let i = 0; i < RESUME_RUNS; i++) idle.push(await resumeOnce());
          for (const writers of WRITERS) {
            ctx.log(`stores-fleet: ${spec.backend}, ${writers} writer process(es), ${durationMs} ms`);
            const children = Array.from({ length: writers }, (_, w) => startWriter(ctx.entry, ["stores-fleet", JSON.stringify(spec), `w${writers}-${w}`, String(durationMs)]));
            await Promise.all(children.map((c) => c.ready));
            for (const c of children) c.go();
            const startAt = Date.now();
            // Resumes spread over the writers' window.
            await new Promise((r) => setTimeout(r, durationMs / 5));
            const busy: number[] = [];
            for (let i = 0; i < RESUME_RUNS && Date.now() < startAt + durationMs - 200; i++) busy.push(await resumeOnce());
            const results = await Promise.all(children.map((c) => c.result));
            const total = results.reduce((n, r) => n + r.appends, 0);
            const window = Math.max(...results.map((r) => r.elapsedMs)) / 1000;
            rows.push({
              backend: spec.backend,
              writers,
              appendsPerSecond: total / window,
              p50: median(results.map((r) => r.p50)),
              p99: Math.max(...results.map((r) => r.p99)),
              resumeMedianMs: median(busy),
              resumeIdleMs: median(idle),
            });
          }
        } finally {
          await reader.close();
        }
      }
    } finally {
      await cleanup(schema, prefix, cluster).catch((error: unknown) => ctx.log(`stores-fleet: cleanup failed: ${(error as Error).message}`));
    }

    const of = (backend: Backend, writers: number) => rows.find((r) => r.backend === backend && r.writers === writers)!;
    const scaling = (backend: Backend) => of(backend, 8).appendsPerSecond / of(backend, 1).appendsPerSecond;
    return {
      checks: [
        check("Redis Cluster: appends/s at 8 writer processes", `${count(Math.round(of("redis-cluster", 8).appendsPerSecond))}/s (${scaling("redis-cluster").toFixed(1)}× 1 writer); with WAIT 1: ${count(Math.round(of("redis-cluster-wait", 8).appendsPerSecond))}/s`, "measured (issue 20)", undefined),
        check("Redis Cluster: resume of a session while 8 processes write", `${ms(of("redis-cluster", 8).resumeMedianMs)} (${count(resumeSize)} messages; one Redis ${ms(of("redis", 8).resumeMedianMs)}, PostgreSQL ${ms(of("postgres", 8).resumeMedianMs)})`, "measured (issue 20)", undefined),
      ],
      tables: [
        {
          title: `Writer processes on each backend (${durationMs / 1000} s window each; resume = a ${count(resumeSize)}-message chat session read whole)`,
          columns: ["backend", "writers", "appends/s", "append p50", "append p99", "resume (writers running)", "resume (idle)"],
          rows: rows.map((r) => [r.backend, String(r.writers), count(Math.round(r.appendsPerSecond)), ms(r.p50), ms(r.p99), ms(r.resumeMedianMs), ms(r.resumeIdleMs)]),
        },
      ],
      notes: [
        `Scaling from 1 to 8 writer processes: PostgreSQL ${scaling("postgres").toFixed(1)}×, one Redis ${scaling("redis").toFixed(1)}×, Redis Cluster ${scaling("redis-cluster").toFixed(1)}× (with WAIT 1: ${scaling("redis-cluster-wait").toFixed(1)}×). On two cores the writers, the servers and this process compete for the CPU: more writers than cores measure contention, not the servers' limit.`,
        "`redis-cluster-wait` sends `WAIT 1` after every write (an acknowledged append is on a replica); `redis-cluster` replicates asynchronously (a failover may drop the last acknowledged writes); the single Redis has no replica and keeps nothing on disk; PostgreSQL commits synchronously to its WAL.",
      ],
      data: { durationMs, resumeSize, rows },
    };
  },
};

/** A writer process: `ready` once it has connected, `go()` starts its window, `result` its BENCH_RESULT. */
function startWriter(entry: string, args: string[]): { ready: Promise<void>; go(): void; result: Promise<ChildResult> } {
  const child = spawn(process.execPath, [entry, "--child", ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
    if (stdout.includes("READY\n")) markReady();
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const result = new Promise<ChildResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      markReady();
      const line = stdout.split("\n").reverse().find((l) => l.startsWith("BENCH_RESULT "));
      if (code === 0 && line) resolve(JSON.parse(line.slice("BENCH_RESULT ".length)) as ChildResult);
      else reject(new Error(`writer ${args.join(" ")} exited with ${code}\n${stderr.trim().slice(-2000)}`));
    });
  });
  return { ready, go: () => child.stdin.end("GO\n"), result };
}

function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function cleanup(schema: string, prefix: string, cluster: RedisClusterHandle): Promise<void> {
  try {
    await dropClusterPrefix(cluster, prefix);
  } finally {
    await cluster.stop();
  }
  const client = createClient({ url: REDIS });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if (keys.length) await client.del(keys);
  } finally {
    await client.close();
  }
  const pool = new pg.Pool({ connectionString: PG, max: 1 });
  try {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await pool.end();
  }
}
