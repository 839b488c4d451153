/**
 * Scenario stores-redis — the Redis HistoryStore (issue 6) against the machine's server
 * (AMPLIFIER_REDIS_URL, else redis://127.0.0.1:6379), under a key prefix of its own that is
 * deleted at the end. Target (issue 6): append p50 ≤ 0.5 ms.
 *
 * Scenario stores-turn — the agent-loop turn (addMessage + getMessagesForRequest) at 10,000
 * messages with context-persistent on each store: jsonl, postgres, redis, hybrid.
 */
import { randomBytes } from "node:crypto";
import { createClient } from "redis";
import type { Message } from "../../contracts/generated/message.js";
import { Coordinator } from "../../core/coordinator.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";
import { RedisStore, type HistoryStoreConfig } from "../../src/modules/stores.js";
import { historyFor, turnMessages, TURN_TARGET_MS } from "./agent-loop-turn.js";
import { generateHistory, rawJsonBytes } from "./history-generator.js";
import { bytes, count, distribution, fullGc, ms } from "./measure.js";
import { chatMessages, timedAppends } from "./store-workload.js";
import { GENERATED_HISTORY, check, type BenchContext, type Scenario, type ScenarioResult } from "./scenario.js";

const REDIS = process.env.AMPLIFIER_REDIS_URL ?? "redis://127.0.0.1:6379";
const PG = process.env.AMPLIFIER_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const BATCH = 1_000;
const RESUME_RUNS = 5;

export const redisStoreScenario: Scenario = {
  id: "stores-redis",
  data: { short: "ours: seeded generator", detail: `${GENERATED_HISTORY.detail}, and chat-sized messages written by the scenario` },
  title: "Redis store: append latency, batch throughput, resume",
  method:
    "A `RedisStore` on the local server (loopback; the machine's Redis keeps nothing on disk), generated messages. " +
    "**Single appends**: one writer awaits each `append` (one Lua script: RPUSH + meta + index + write id) on one session; then 8 writers on 8 sessions at once. " +
    "**Batch**: `appendMany` in batches of 1,000 into one session until it holds `bigCount` messages. " +
    "**Resume**: a new store instance `open()`s that session (LRANGE pages of 10,000, JSON.parse each); median of 5. " +
    "**Listing**: `listSessions()` and `deleteSession()` with 100k sessions in the index (one message each, written with pipelined commands).",
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const keyPrefix = `amp_bench_${randomBytes(4).toString("hex")}:`;
    const quick = ctx.options.quick;
    const singles = quick ? 1_000 : 5_000;
    const perWriter = quick ? 300 : 2_000;
    const big = ctx.options.bigCount;
    const small = chatMessages(Math.max(singles, perWriter * 8));
    const history = generateHistory({ count: big, seed: 7, idPrefix: "rd" });
    const store = new RedisStore({ url: REDIS, keyPrefix });
    try {
      await store.open("warmup");
      await store.appendMany("warmup", small.slice(0, 100));
      ctx.log(`stores-redis: ${count(singles)} single appends, 1 writer`);
      const one = await timedAppends(store, ["single"], singles, small);
      ctx.log(`stores-redis: 8 writers × ${count(perWriter)} appends`);
      const eight = await timedAppends(store, Array.from({ length: 8 }, (_, w) => `writer-${w}`), perWriter, small);
      const chat = await batchAndResume(store, keyPrefix, "chat", chatMessages(big), ctx);
      const agent = await batchAndResume(store, keyPrefix, "agent-loop", history, ctx);
      const sessionsAtScale = quick ? 10_000 : 100_000;
      ctx.log(`stores-redis: listSessions / deleteSession at ${count(sessionsAtScale)} sessions`);
      await addSessions(keyPrefix, sessionsAtScale);
      const l0 = performance.now();
      const listed = (await store.listSessions()).length;
      const listMs = performance.now() - l0;
      if (listed < sessionsAtScale) throw new Error(`listSessions returned ${listed} of at least ${sessionsAtScale} sessions`);
      const d0 = performance.now();
      await store.deleteSession("scale-0000042");
      const deleteMs = performance.now() - d0;
      return {
        checks: [
          check("append p50 (1 writer)", ms(one.latency.median), "≤ 0.5 ms", one.latency.median <= 0.5),
          check("append p99 (1 writer)", ms(one.latency.p99), "—", undefined),
          check("appends/s (1 writer)", count(Math.round(one.rate)), "—", undefined),
          check("append p50 (8 writers)", ms(eight.latency.median), "—", undefined),
          check("appends/s (8 writers)", count(Math.round(eight.rate)), "—", undefined),
          ...[chat, agent].flatMap((c) => [
            check(`batch append, ${c.corpus} (appendMany ×1,000)`, `${count(Math.round(c.batchRate))} msg/s`, "—", undefined),
            check(`resume ${count(c.n)} ${c.corpus} messages, ${bytes(c.jsonBytes)} (median of ${RESUME_RUNS})`, ms(c.resume.median), "—", undefined),
          ]),
          check(`listSessions at ${count(sessionsAtScale)} sessions`, ms(listMs), "—", undefined),
          check(`deleteSession at ${count(sessionsAtScale)} sessions`, ms(deleteMs), "—", undefined),
        ],
        tables: [
          {
            title: "Redis store",
            columns: ["measure", "n", "p50", "p99", "max", "throughput"],
            rows: [
              ["append, 1 writer", count(one.latency.n), ms(one.latency.median), ms(one.latency.p99), ms(one.latency.max), `${count(Math.round(one.rate))}/s`],
              ["append, 8 writers (own sessions)", count(eight.latency.n), ms(eight.latency.median), ms(eight.latency.p99), ms(eight.latency.max), `${count(Math.round(eight.rate))}/s`],
              ...[chat, agent].flatMap((c) => [
                [`appendMany ×${count(BATCH)}, ${c.corpus} (${bytes(c.jsonBytes)})`, count(c.n), "—", "—", "—", `${count(Math.round(c.batchRate))} msg/s`],
                [`resume (open) ${count(c.n)} ${c.corpus} messages`, String(RESUME_RUNS), ms(c.resume.median), "—", ms(c.resume.max), `${count(Math.round(c.n / (c.resume.median / 1000)))} msg/s`],
              ]),
              [`listSessions (${count(listed)} listed)`, "1", ms(listMs), "—", "—", "—"],
              [`deleteSession (${count(sessionsAtScale)} in the index)`, "1", ms(deleteMs), "—", "—", "—"],
            ],
          },
        ],
        notes: [
          "Each append is one EVAL on one connection shared by every store of the URL; calls on one session are chained (call order, also across retries), so the 1-writer figure is one round trip per append.",
          "The machine's Redis runs without persistence (--save \"\" --appendonly no): these figures are the cache's, not a durable Redis's (appendfsync always would add a disk flush per append).",
        ],
        data: { one, eight, chat, agent, listMs, deleteMs, sessionsAtScale },
      };
    } finally {
      await store.close();
      await dropPrefix(keyPrefix);
    }
  },
};

export const storesTurnScenario: Scenario = {
  id: "stores-turn",
  data: GENERATED_HISTORY,
  title: "Agent-loop turn at 10k messages, per store",
  method:
    "As scenario 1 (the same 10,000-message history and new messages, budget 128,000, gpt-4o counting), with context-persistent on each store: " +
    "jsonl (fsync always), postgres, redis, hybrid (redis hot + postgres cold). The history is written with `setMessages`, then warm-up + measured turns; " +
    "one turn = `addMessage` (durable in the store when it resolves) + `getMessagesForRequest`.",
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const tag = randomBytes(4).toString("hex");
    const schema = `amp_bench_turn_${tag}`;
    const keyPrefix = `amp_bench_turn_${tag}:`;
    const stores: [string, HistoryStoreConfig][] = [
      ["jsonl (fsync always)", { type: "jsonl", storagePath: `${ctx.tmpRoot}/turn-${tag}`, fsync: "always" }],
      ["postgres", { type: "postgres", url: PG, schema }],
      ["redis", { type: "redis", url: REDIS, keyPrefix }],
      ["hybrid (redis + postgres)", { type: "hybrid", hot: { type: "redis", url: REDIS, keyPrefix: `${keyPrefix}h:` }, cold: { type: "postgres", url: PG, schema: `${schema}_h` } }],
    ];
    const history = historyFor(ctx, 10_000);
    const rows: string[][] = [];
    const checks = [];
    try {
      for (const [label, store] of stores) {
        ctx.log(`stores-turn: ${label}`);
        const stream = turnMessages(ctx, `st-${label.length}-${tag}`);
        fullGc();
        const coordinator = new Coordinator({ sessionId: `turn-${tag}` });
        const context = await mountPersistent(coordinator, { store: store as never, strict: true });
        try {
          await context.setMessages(history);
          const add: number[] = [];
          const total: number[] = [];
          for (let i = 0; i < stream.length; i++) {
            const t0 = performance.now();
            await context.addMessage(stream[i]!);
            const t1 = performance.now();
            await context.getMessagesForRequest(ctx.options.budget);
            const t2 = performance.now();
            if (i < ctx.options.warmup) continue;
            add.push(t1 - t0);
            total.push(t2 - t0);
          }
          const a = distribution(add);
          const t = distribution(total);
          rows.push([label, ms(t.median), ms(t.p99), ms(a.median), ms(t.median - a.median)]);
          checks.push(check(`turn median at N=10,000: context-persistent on ${label}`, ms(t.median), `≤ ${TURN_TARGET_MS} ms (issue 4's target; informational for network stores)`, undefined));
        } finally {
          await coordinator.cleanup();
        }
      }
    } finally {
      await dropPrefix(keyPrefix);
      const pg = await import("pg");
      const client = new pg.default.Client({ connectionString: PG });
      await client.connect();
      try {
        for (const s of [schema, `${schema}_h`]) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
      } finally {
        await client.end();
      }
    }
    return {
      checks,
      tables: [{ title: "Turn at N = 10,000 per store (context-persistent)", columns: ["store", "turn median", "turn p99", "addMessage median", "window median (≈)"], rows }],
      notes: ["A turn's addMessage is a durable write: a local fsync for jsonl, a committed transaction for postgres, a Lua script for redis, both for hybrid. The window itself does not touch the store (the history is held in memory)."],
    };
  },
};


async function batchAndResume(store: RedisStore, keyPrefix: string, corpus: string, messages: Message[], ctx: BenchContext) {
  const n = messages.length;
  const sessionId = `big-${corpus}`;
  ctx.log(`stores-redis: appendMany ${count(n)} ${corpus} messages in batches of ${count(BATCH)}`);
  const t0 = performance.now();
  for (let i = 0; i < n; i += BATCH) await store.appendMany(sessionId, messages.slice(i, Math.min(n, i + BATCH)));
  const batchMs = performance.now() - t0;
  ctx.log(`stores-redis: resume the ${count(n)}-message ${corpus} session (${RESUME_RUNS} runs)`);
  const samples: number[] = [];
  for (let r = 0; r < RESUME_RUNS; r++) {
    const fresh = new RedisStore({ url: REDIS, keyPrefix });
    const s0 = performance.now();
    const resumed = (await fresh.open(sessionId)).messages.length;
    samples.push(performance.now() - s0);
    await fresh.close();
    if (resumed !== n) throw new Error(`resume returned ${resumed} of ${n} messages`);
  }
  return { corpus, n, jsonBytes: rawJsonBytes(messages), batchMs, batchRate: n / (batchMs / 1000), resume: distribution(samples) };
}


/** Writes `n` sessions of one message each in the store's layout (list, meta hash, index), pipelined, as if they had been appended. */
async function addSessions(prefix: string, n: number): Promise<void> {
  const client = createClient({ url: REDIS });
  await client.connect();
  try {
    const now = new Date().toISOString();
    const json = JSON.stringify({ role: "user", content: "hello", metadata: { id: "s1" } });
    for (let i = 0; i < n; i += 5_000) {
      const multi = client.multi();
      for (let k = i; k < Math.min(n, i + 5_000); k++) {
        const id = `scale-${String(k).padStart(7, "0")}`;
        multi.rPush(`${prefix}s:${id}`, json).hSet(`${prefix}m:${id}`, { bytes: json.length + 1, updatedAt: now }).zAdd(`${prefix}index`, { score: 0, value: id });
      }
      await multi.execAsPipeline();
    }
  } finally {
    await client.close();
  }
}

async function dropPrefix(prefix: string): Promise<void> {
  const client = createClient({ url: REDIS });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if (keys.length) await client.del(keys);
  } finally {
    await client.close();
  }
}
