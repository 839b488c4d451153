/**
 * Unknown outcomes in the Redis store (issue 25, item 4). A proxy between the store and the
 * machine's Redis forwards every command but, while told to, swallows the reply of each EVAL and
 * closes the connection: the script ran (the message IS stored) and the store cannot know it. The
 * store must then say STORAGE_WRITE_UNCERTAIN (never STORAGE_WRITE_FAILED, whose "not stored"
 * would be false), and a retry of the same message must be a no-op.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ClientClosedError, ClientOfflineError, ErrorReply, SocketClosedUnexpectedlyError } from "redis";
import type { Message } from "../../contracts/generated/message.js";
import { RedisStore, mayHaveReachedServer } from "../../modules/store-redis/redis-store.js";
import { lossyProxy } from "./lossy-proxy.js";
import { dropPrefixes, REDIS_URL, testKeyPrefix } from "./redis-support.js";

const prefixes: string[] = [];
const stores: RedisStore[] = [];
afterEach(async () => {
  await Promise.allSettled(stores.splice(0).map((s) => s.close()));
});
afterAll(() => dropPrefixes(...prefixes));

const msg = (i: number): Message => ({ role: "user", content: `m${i}`, metadata: { id: `m${i}` } });

const redisProxy = () => {
  const upstream = new URL(REDIS_URL);
  return lossyProxy({ host: upstream.hostname, port: Number(upstream.port || 6379) }, "EVAL", "redis");
};

describe("RedisStore: appends whose outcome is unknown", () => {
  it("a reply lost after the script ran is STORAGE_WRITE_UNCERTAIN naming the message; retrying the same message stores it once", async () => {
    const proxy = await redisProxy();
    const keyPrefix = testKeyPrefix();
    prefixes.push(keyPrefix);
    const store = new RedisStore({ url: proxy.url, keyPrefix, retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 50, outcomeWindowMs: 400 } });
    stores.push(store);
    try {
      await store.append("s", msg(1));
      proxy.swallow = true;
      const started = Date.now();
      const error = await store.append("s", msg(2)).then(() => undefined, (e: unknown) => e as { code?: string; details?: { messageIds?: string[] } });
      expect(error?.code).toBe("STORAGE_WRITE_UNCERTAIN");
      expect(error?.details?.messageIds).toEqual(["m2"]);
      // Retried (every try applied nothing new: the write id) for the window, past the 2 attempts.
      expect(Date.now() - started).toBeGreaterThanOrEqual(400);
      expect(proxy.swallowed).toBeGreaterThan(2);
      proxy.swallow = false;

      const reader = new RedisStore({ url: REDIS_URL, keyPrefix });
      stores.push(reader);
      expect((await reader.read("s")).map((m) => m.content)).toEqual(["m1", "m2"]); // it was stored: "uncertain", not "failed"
      await store.append("s", msg(2)); // the caller's retry, a new call (a new write id): the message id makes it a no-op
      await store.append("s", msg(3));
      expect((await reader.read("s")).map((m) => m.content)).toEqual(["m1", "m2", "m3"]);
    } finally {
      await proxy.close();
    }
  });

  it("a write no try of which can have reached the server is STORAGE_WRITE_FAILED, and nothing is stored", async () => {
    const proxy = await redisProxy();
    const keyPrefix = testKeyPrefix();
    prefixes.push(keyPrefix);
    const store = new RedisStore({ url: proxy.url, keyPrefix, retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 20, outcomeWindowMs: 60_000 } });
    stores.push(store);
    await store.append("s", msg(1));
    await proxy.close(); // every connection cut, new ones refused
    await expect(store.count("s")).rejects.toMatchObject({ code: "STORAGE_UNAVAILABLE" }); // the client now knows it is offline
    const started = Date.now();
    await expect(store.append("s", msg(2))).rejects.toMatchObject({ code: "STORAGE_WRITE_FAILED" });
    expect(Date.now() - started).toBeLessThan(30_000); // not held for the outcome window: there is nothing to learn
    const reader = new RedisStore({ url: REDIS_URL, keyPrefix });
    stores.push(reader);
    expect((await reader.read("s")).map((m) => m.content)).toEqual(["m1"]);
  });

  it("classifies node-redis failures: refused before sending or answered → not applied; a lost connection → maybe applied", () => {
    expect(mayHaveReachedServer(new ClientOfflineError())).toBe(false);
    expect(mayHaveReachedServer(new ClientClosedError())).toBe(false);
    expect(mayHaveReachedServer(new ErrorReply("LOADING Redis is loading the dataset in memory"))).toBe(false);
    expect(mayHaveReachedServer(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }))).toBe(false);
    expect(mayHaveReachedServer(new SocketClosedUnexpectedlyError())).toBe(true);
    expect(mayHaveReachedServer(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }))).toBe(true);
    expect(mayHaveReachedServer(new Error("something nobody expected"))).toBe(true);
  });
});
