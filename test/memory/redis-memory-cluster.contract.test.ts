/**
 * The memory contract against a real Redis Cluster (3 primaries + 3 replicas started on free
 * loopback ports by test/stores/redis-cluster.ts, removed after; never the machine's Redis).
 * memory-redis puts every key of one memory under one hash tag (`{<keyPrefix>}`): its scripts are
 * memory-wide (eviction of the oldest sessions, the memory-wide event order, getRecentEvents'
 * sorted set), so they run in one slot — the memory works on a cluster, on one primary.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeMemoryContract } from "../../testing/memory-contract.js";
import { RedisMemory } from "../../modules/memory-redis/index.js";
import { dropClusterPrefix, keySlot, nodeCommand, startRedisCluster, type RedisClusterHandle } from "../stores/redis-cluster.js";
import { bundleMemoryWriter, uniqueName, writerSpawner } from "./memory-support.js";

let cluster: RedisClusterHandle;
let script = "";
const prefixes: string[] = [];
beforeAll(async () => {
  [script, cluster] = await Promise.all([bundleMemoryWriter(), startRedisCluster()]);
}, 90_000);
afterAll(async () => {
  try {
    for (const prefix of prefixes) await dropClusterPrefix(cluster, `{${prefix}}`);
  } finally {
    await cluster?.stop();
  }
}, 30_000);

describeMemoryContract(
  "memory-redis on a Redis Cluster",
  async (limits) => {
    const keyPrefix = `${uniqueName("amp-mem-cluster:")}:`;
    prefixes.push(keyPrefix);
    return { memory: new RedisMemory({ url: cluster.url, keyPrefix, ...limits }), storage: keyPrefix };
  },
  { spawnWriter: (under, job) => writerSpawner(script, "redis", cluster.url)(under, job) },
);

describe("memory-redis cluster layout", () => {
  it("every key of a memory sits in the slot of its hash tag {keyPrefix}", async () => {
    const keyPrefix = `${uniqueName("amp-mem-cluster:")}:`;
    prefixes.push(keyPrefix);
    const memory = new RedisMemory({ url: cluster.url, keyPrefix });
    try {
      const id = await memory.createSession({ appName: "app", userId: "u", sessionId: "one" });
      await memory.addEvent(id, memory.createEvent("user_message", { text: "hi" } as never));
      const owner = await cluster.masterOfSlot(await keySlot(cluster, `{${keyPrefix}}sessions`));
      const keys = (await nodeCommand(owner.url, ["KEYS", `{${keyPrefix}}*`])) as string[];
      expect(keys.sort()).toEqual([`{${keyPrefix}}e:one`, `{${keyPrefix}}eseq`, `{${keyPrefix}}ix:one`, `{${keyPrefix}}ord`, `{${keyPrefix}}recent`, `{${keyPrefix}}s:one`, `{${keyPrefix}}sessions`].sort());
    } finally {
      await memory.close();
    }
  });

  it("a cluster url with a bad node, or a prefix with braces, is INVALID_ARGUMENT", () => {
    expect(() => new RedisMemory({ url: "redis+cluster://a:1,b" })).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "url" }) }));
    expect(() => new RedisMemory({ url: "redis+cluster://a:1", keyPrefix: "{x}" })).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "keyPrefix" }) }));
  });
});
