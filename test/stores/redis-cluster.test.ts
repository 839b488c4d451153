/**
 * RedisStore on a Redis Cluster, beyond the contract (redis-cluster-contract.test.ts): the key
 * layout (a session's keys in one slot, sessions spread over the primaries), the cluster index
 * (listing, pruning of sessions whose keys are gone), moving single-server data into a cluster
 * with `amplifier-ts sessions export`, replica acknowledgements, and the options' errors. A
 * private cluster (test/stores/redis-cluster.ts) and a private single server, never the machine's Redis.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { RedisStore, redisKeys } from "../../modules/store-redis/index.js";
import { openRedisClients } from "../../modules/store-redis/redis-clients.js";
import { parseStoreUrl } from "../../modules/stores/store-url.js";
import { loadHistoryStore } from "../../modules/stores/create-store.js";
import { runCli } from "../../src/cli/main.js";
import { dropClusterPrefix, keySlot, nodeCommand, startRedisCluster, type RedisClusterHandle } from "./redis-cluster.js";
import { startPrivateRedis, testKeyPrefix } from "./redis-support.js";

let cluster: RedisClusterHandle;
const prefixes: string[] = [];
beforeAll(async () => {
  cluster = await startRedisCluster();
}, 90_000);
afterAll(async () => {
  await cluster?.stop();
}, 30_000);

function prefix(): string {
  const p = testKeyPrefix();
  prefixes.push(p);
  return p;
}

const msg = (i: number): Message => ({ role: i % 2 ? "assistant" : "user", content: `m${i}`, metadata: { id: `m${i}` } });

/** The primary's port serving `key`. */
async function ownerOf(key: string): Promise<number> {
  return (await cluster.masterOfSlot(await keySlot(cluster, key))).port;
}

describe("RedisStore on a Redis Cluster", () => {
  it("a session's keys share one slot (hash tag {agent:session}); sessions spread over the primaries", async () => {
    const keyPrefix = prefix();
    const store = new RedisStore({ url: cluster.url, keyPrefix });
    try {
      expect(store.cluster).toBe(true);
      const sessions = Array.from({ length: 30 }, (_, i) => `s${i}`);
      for (const id of sessions) await store.append(id, msg(0), { agentId: "bot" });
      const keys = redisKeys(keyPrefix, "bot", true);
      expect(keys.list("s1")).toBe(`${keyPrefix}{bot:s1}:s`);
      const slot = await keySlot(cluster, keys.list("s1"));
      expect(await keySlot(cluster, keys.meta("s1"))).toBe(slot);
      expect(await keySlot(cluster, keys.writeId("s1"))).toBe(slot);
      const owners = new Set(await Promise.all(sessions.map((id) => ownerOf(keys.list(id)))));
      expect(owners.size).toBe(3);
      // Each session's data sits on the primary its slot names, read there directly (no redirect).
      for (const id of sessions.slice(0, 6)) {
        const owner = await cluster.masterOfSlot(await keySlot(cluster, keys.list(id)));
        expect(await nodeCommand(owner.url, ["LLEN", keys.list(id)])).toBe(1);
        expect(await nodeCommand(owner.url, ["HEXISTS", keys.meta(id), "updatedAt"])).toBe(1);
      }
      expect((await store.listSessions({ agentId: "bot" })).map((s) => s.sessionId)).toEqual([...sessions].sort());
      expect(await store.listSessions()).toEqual([]); // another agent's index
    } finally {
      await store.close();
      await dropClusterPrefix(cluster, keyPrefix);
    }
  });

  it("a store config names the cluster: { type: \"redis\", cluster: { rootNodes } } and a redis+cluster:// url through loadHistoryStore", async () => {
    const keyPrefix = prefix();
    const byNodes = await loadHistoryStore({ type: "redis", cluster: { rootNodes: cluster.rootNodes }, keyPrefix, waitForReplicas: { replicas: 1 } });
    const byUrl = await loadHistoryStore(parseStoreUrl(`${cluster.url}?keyPrefix=${keyPrefix}`));
    try {
      await byNodes.append("cfg", msg(0));
      await byUrl.append("cfg", msg(1));
      expect(await byUrl.read("cfg")).toEqual([msg(0), msg(1)]);
      expect((byNodes as RedisStore).cluster && (byUrl as RedisStore).cluster).toBe(true);
      expect(openRedisClients()).toBeGreaterThan(0);
    } finally {
      await byNodes.close();
      await byUrl.close();
      await dropClusterPrefix(cluster, keyPrefix);
    }
    // The cluster clients close with the last store on them (no socket keeps the process alive).
    expect(openRedisClients()).toBe(0);
  });

  it("listing drops an index entry whose keys are gone once its last write is a minute old, and keeps a recent one", async () => {
    const keyPrefix = prefix();
    const store = new RedisStore({ cluster: { rootNodes: cluster.rootNodes.slice(0, 1) }, keyPrefix });
    try {
      await store.append("old", msg(0));
      await store.append("recent", msg(0));
      await store.append("kept", msg(0));
      const keys = redisKeys(keyPrefix, "default", true);
      const del = async (id: string) => {
        const node = await cluster.masterOfSlot(await keySlot(cluster, keys.list(id)));
        await nodeCommand(node.url, ["DEL", keys.list(id), keys.meta(id)]); // what expiry does
      };
      await del("old");
      await del("recent");
      const indexOwner = await cluster.masterOfSlot(await keySlot(cluster, keys.index));
      await nodeCommand(indexOwner.url, ["ZADD", keys.index, String(Date.now() - 120_000), "old"]);
      expect((await store.listSessions()).map((s) => s.sessionId)).toEqual(["kept"]);
      expect(((await nodeCommand(indexOwner.url, ["ZRANGE", keys.index, "0", "-1"])) as string[]).sort()).toEqual(["kept", "recent"]);
      // deleteSession takes it out of the index at once.
      await store.deleteSession("kept");
      expect(await nodeCommand(indexOwner.url, ["ZRANGE", keys.index, "0", "-1"])).toEqual(["recent"]);
      expect(await store.read("kept")).toEqual([]);
    } finally {
      await store.close();
      await dropClusterPrefix(cluster, keyPrefix);
    }
  });

  it("single-server data (the old key names) moves into the cluster with `sessions export --all --to redis+cluster://…`, idempotent and verified", async () => {
    const dir = await mkdtemp(join(tmpdir(), "amp-redis-migrate-"));
    const single = await startPrivateRedis();
    const keyPrefix = prefix();
    try {
      const old = new RedisStore({ url: single.url, keyPrefix });
      await old.appendMany("alpha", Array.from({ length: 25 }, (_, i) => msg(i)));
      await old.appendMany("beta", [msg(0), msg(1), { role: "tool", tool_call_id: "c1", content: "✓ 日本", metadata: { id: "t" } }]);
      await old.close();
      // The single server holds the layout from before clusters: <prefix>s:<id>, <prefix>m:<id>, <prefix>index.
      expect(await nodeCommand(single.url, ["LLEN", `${keyPrefix}s:alpha`])).toBe(25);

      const to = `${cluster.url}?keyPrefix=${keyPrefix}`;
      const from = `${single.url}?keyPrefix=${keyPrefix}`;
      const cli = async (...argv: string[]) => {
        let stdout = "";
        let stderr = "";
        const code = await runCli(argv, { stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stderr += c) }, cwd: dir });
        return { code, stdout, stderr };
      };
      const first = await cli("sessions", "export", "--all", "--store", from, "--to", to);
      expect(first.stderr).toBe("");
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/alpha\s+25\s+copied/);
      const again = await cli("sessions", "export", "--all", "--store", from, "--to", to);
      expect(again.stdout).toMatch(/alpha\s+25\s+unchanged/);
      expect(again.stdout).toMatch(/beta\s+3\s+unchanged/);

      const moved = new RedisStore({ url: cluster.url, keyPrefix });
      try {
        expect(await moved.read("alpha")).toEqual(Array.from({ length: 25 }, (_, i) => msg(i)));
        expect((await moved.read("beta"))[2]).toEqual({ role: "tool", tool_call_id: "c1", content: "✓ 日本", metadata: { id: "t" } });
        expect((await moved.listSessions()).map((s) => [s.sessionId, s.count])).toEqual([["alpha", 25], ["beta", 3]]);
      } finally {
        await moved.close();
      }
    } finally {
      await single.stop();
      await rm(dir, { recursive: true, force: true });
      await dropClusterPrefix(cluster, keyPrefix);
    }
  });

  it("waitForReplicas: writes resolve once a replica holds them (cluster); with no replica to answer, STORAGE_WRITE_UNCERTAIN after the retries (the primary holds it)", async () => {
    const keyPrefix = prefix();
    const store = new RedisStore({ url: cluster.url, keyPrefix, waitForReplicas: { replicas: 1, timeoutMs: 1_000 } });
    const single = await startPrivateRedis();
    const lonely = new RedisStore({ url: single.url, keyPrefix, waitForReplicas: { replicas: 1, timeoutMs: 50 }, retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 10, outcomeWindowMs: 100 } });
    try {
      await store.appendMany("w", [msg(0), msg(1)]);
      await store.replace("w", [msg(2)]);
      expect(await store.read("w")).toEqual([msg(2)]);
      const primary = await cluster.masterOfSlot(await keySlot(cluster, `${keyPrefix}{default:w}:s`));
      const [replica] = await cluster.replicasOf(primary.port);
      // The replica holds it the moment the write resolved: read there directly (READONLY on one connection), no waiting.
      const replicaClient = createClient({ url: `redis://127.0.0.1:${replica}`, socket: { reconnectStrategy: false } });
      replicaClient.on("error", () => undefined);
      await replicaClient.connect();
      try {
        await replicaClient.sendCommand(["READONLY"]);
        expect(await replicaClient.sendCommand(["LRANGE", `${keyPrefix}{default:w}:s`, "0", "-1"])).toEqual([JSON.stringify(msg(2))]);
      } finally {
        await replicaClient.close();
      }

      const error = await lonely.append("x", msg(0)).then(() => undefined, (e: unknown) => e);
      // Applied on the primary, unacknowledged by a replica: not "not stored" (FAILED) — stored, but perhaps not durable.
      expect(error).toMatchObject({ code: "STORAGE_WRITE_UNCERTAIN", message: expect.stringMatching(/acknowledged by 0 of 1 replica\(s\) within 50 ms.*after \d+ tries/) });
      expect((error as { details?: { hint?: string } }).details?.hint).toContain("waitForReplicas");
      expect((await lonely.read("x")).map((m) => m.content)).toEqual([msg(0).content]);
    } finally {
      await store.close();
      await lonely.close();
      await single.stop();
      await dropClusterPrefix(cluster, keyPrefix);
    }
  });
});

describe("RedisStore cluster options", () => {
  const bad = (options: ConstructorParameters<typeof RedisStore>[0], path: string) =>
    expect(() => new RedisStore(options)).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path }) }));

  it("bad options are INVALID_ARGUMENT naming the option", () => {
    bad({ url: "redis://a:1", cluster: { rootNodes: ["redis://b:2"] } }, "store.cluster");
    bad({ cluster: { rootNodes: [] } }, "store.cluster.rootNodes");
    bad({ cluster: { rootNodes: ["http://b:2"] } }, "store.cluster.rootNodes.0");
    bad({ cluster: { rootNodes: ["redis://b:2"], nodes: 3 } as never }, "store.cluster.nodes");
    bad({ url: "redis+cluster://a:1,nohost" }, "store.url");
    bad({ url: "redis+cluster://a:1", keyPrefix: "{app}:" }, "store.keyPrefix");
    bad({ waitForReplicas: { replicas: 0 } }, "store.waitForReplicas.replicas");
    bad({ waitForReplicas: { replicas: 1, timeoutMs: -1 } }, "store.waitForReplicas.timeoutMs");
    bad({ ttlSeconds: 0 }, "store.ttlSeconds");
    bad({ tls: true } as never, "store.tls");
  });

  it("redis+cluster:// urls and cluster.rootNodes name the same cluster; credentials stay out of the url shown", () => {
    const a = new RedisStore({ url: "redis+cluster://:pw@10.0.0.1:7000,10.0.0.2:7001" });
    const b = new RedisStore({ cluster: { rootNodes: ["redis://10.0.0.1:7000", "redis://10.0.0.2:7001"] } });
    expect(a.cluster && b.cluster).toBe(true);
    expect(a.url).toBe("redis+cluster://10.0.0.1:7000,10.0.0.2:7001");
    expect(b.url).toBe(a.url);
    expect(new RedisStore({ url: "redis://127.0.0.1:6379" }).cluster).toBe(false);
    expect(parseStoreUrl("redis+cluster://h1:1,h2:2?keyPrefix=app:")).toEqual({ type: "redis", url: "redis+cluster://h1:1,h2:2", keyPrefix: "app:" });
  });
});
