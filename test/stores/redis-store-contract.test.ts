import { beforeAll } from "vitest";
import { describeHistoryStoreContract } from "../../testing/history-store-contract.js";
import { RedisStore } from "../../src/modules/stores.js";
import { startWriter } from "./support.js";
import { bundleRedisWriter, dropPrefixes, REDIS_URL, testKeyPrefix } from "./redis-support.js";

/**
 * The whole HistoryStore contract against the real Redis at 127.0.0.1:6379: each case under a key
 * prefix of its own, deleted after; the process part runs 4 writer processes (a bundled
 * RedisStore, test/stores/fixtures/redis-writer.ts) on one session beside this process.
 */
let script: string;
beforeAll(async () => {
  script = await bundleRedisWriter();
});

describeHistoryStoreContract(
  "redis",
  async () => {
    const keyPrefix = testKeyPrefix();
    return {
      store: new RedisStore({ url: REDIS_URL, keyPrefix }),
      reopen: async () => new RedisStore({ url: REDIS_URL, keyPrefix }),
      cleanup: () => dropPrefixes(keyPrefix),
      storage: keyPrefix,
    };
  },
  {
    attachments: true,
    processes: {
      async spawnWriter(under, { sessionId, writer, count }) {
        const child = startWriter(script, ["append", REDIS_URL, String(under.storage), sessionId, String(writer), String(count)]);
        const { code } = await child.exited;
        if (code !== 0 || !child.lines.includes("done")) throw new Error(`writer ${writer} failed (exit ${code}): ${child.stderr()}`);
      },
    },
  },
);
