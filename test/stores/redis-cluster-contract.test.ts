/**
 * The whole HistoryStore contract against a real Redis Cluster: three primaries and three
 * replicas this file starts on free loopback ports (test/stores/redis-cluster.ts) and removes
 * after, never the machine's Redis. Each case under a key prefix of its own; the process part
 * runs 4 writer processes (test/stores/fixtures/redis-writer.ts, given the redis+cluster:// url).
 */
import { afterAll, beforeAll } from "vitest";
import { describeHistoryStoreContract } from "../../testing/history-store-contract.js";
import { RedisStore } from "../../src/modules/stores.js";
import { startWriter } from "./support.js";
import { bundleRedisWriter, testKeyPrefix } from "./redis-support.js";
import { dropClusterPrefix, startRedisCluster, type RedisClusterHandle } from "./redis-cluster.js";

let script: string;
let cluster: RedisClusterHandle;
beforeAll(async () => {
  [script, cluster] = await Promise.all([bundleRedisWriter(), startRedisCluster()]);
}, 90_000);
afterAll(async () => {
  await cluster?.stop();
}, 30_000);

describeHistoryStoreContract(
  "redis cluster (3 primaries + 3 replicas)",
  async () => {
    const keyPrefix = testKeyPrefix();
    return {
      store: new RedisStore({ url: cluster.url, keyPrefix }),
      reopen: async () => new RedisStore({ cluster: { rootNodes: cluster.rootNodes }, keyPrefix }),
      cleanup: () => dropClusterPrefix(cluster, keyPrefix),
      storage: keyPrefix,
    };
  },
  {
    attachments: true,
    processes: {
      async spawnWriter(under, { sessionId, writer, count }) {
        const child = startWriter(script, ["append", cluster.url, String(under.storage), sessionId, String(writer), String(count)]);
        const { code } = await child.exited;
        if (code !== 0 || !child.lines.includes("done")) throw new Error(`writer ${writer} failed (exit ${code}): ${child.stderr()}`);
      },
    },
  },
);
