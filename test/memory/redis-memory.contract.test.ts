import { createClient } from "redis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeMemoryContract } from "../../testing/memory-contract.js";
import { RedisMemory } from "../../modules/memory-redis/index.js";
import { isAmplifierError } from "../../contracts/index.js";
import { bundleMemoryWriter, REDIS_URL, uniqueName, writerSpawner } from "./memory-support.js";

/** The memory contract against the real server (127.0.0.1:6379): a key prefix per case, its keys deleted after. */
const prefixes: string[] = [];
let script = "";
beforeAll(async () => {
  script = await bundleMemoryWriter();
});
afterAll(async () => {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  for (const prefix of prefixes) {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if (keys.length) await client.del(keys);
  }
  await client.close();
});

describeMemoryContract(
  "memory-redis",
  async (limits) => {
    const keyPrefix = `${uniqueName("amp-mem-test:")}:`;
    prefixes.push(keyPrefix);
    return { memory: new RedisMemory({ url: REDIS_URL, keyPrefix, ...limits }), storage: keyPrefix };
  },
  { spawnWriter: (under, job) => writerSpawner(script, "redis", REDIS_URL)(under, job) },
);

it("a server that cannot be reached is STORAGE_WRITE_FAILED for writes", async () => {
  const memory = new RedisMemory({ url: "redis://127.0.0.1:1", connectTimeoutMs: 500 });
  const error = await memory.createSession({ appName: "a", userId: "u" }).catch((e: unknown) => e);
  expect(isAmplifierError(error, "STORAGE_WRITE_FAILED")).toBe(true);
  await memory.close();
});
