/**
 * What the Redis store does beyond the contract: TTL and cap (cache policies), fast failure and
 * bounded retries, recovery when the server comes back, no open handles after close, options.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createClient } from "redis";
import type { Message } from "../../contracts/generated/message.js";
import { RedisStore } from "../../src/modules/stores.js";
import { openRedisClients } from "../../modules/store-redis/redis-clients.js";
import { startWriter } from "./support.js";
import { bundleRedisWriter, dropPrefixes, keysUnder, REDIS_URL, startPrivateRedis, testKeyPrefix } from "./redis-support.js";

const prefixes: string[] = [];
const stores: RedisStore[] = [];
function store(options: ConstructorParameters<typeof RedisStore>[0] = {}) {
  const keyPrefix = testKeyPrefix();
  prefixes.push(keyPrefix);
  const s = new RedisStore({ url: REDIS_URL, keyPrefix, ...options });
  stores.push(s);
  return s;
}
afterEach(async () => {
  await Promise.allSettled(stores.splice(0).map((s) => s.close()));
});
afterAll(() => dropPrefixes(...prefixes));

const msg = (i: number, runId?: string): Message => ({ role: "user", content: `m${i}`, metadata: { id: `m${i}`, ...(runId ? { runId } : {}) } });

describe("RedisStore", () => {
  it("ttlSeconds: the session's keys expire after the last write (refreshed on each write)", async () => {
    const s = store({ ttlSeconds: 120 });
    await s.append("t", msg(1));
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    try {
      const ttl = await client.ttl(`${s.keyPrefix}s:t`);
      expect(ttl).toBeGreaterThan(100);
      expect(ttl).toBeLessThanOrEqual(120);
      await client.expire(`${s.keyPrefix}s:t`, 5);
      await s.append("t", msg(2));
      expect(await client.ttl(`${s.keyPrefix}s:t`)).toBeGreaterThan(100);
    } finally {
      await client.close();
    }
  });

  it("ttlSeconds: a session whose keys have expired is not listed and leaves the index", async () => {
    const s = store({ ttlSeconds: 120 });
    await s.append("gone", msg(1));
    await s.append("kept", msg(2));
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    try {
      await client.del([`${s.keyPrefix}s:gone`, `${s.keyPrefix}m:gone`]); // what expiry does
      expect((await s.listSessions()).map((x) => x.sessionId)).toEqual(["kept"]);
      expect(await client.zRange(`${s.keyPrefix}index`, 0, -1)).toEqual(["kept"]);
      await s.append("gone", msg(3)); // written again: listed again
      expect((await s.listSessions()).map((x) => x.sessionId)).toEqual(["gone", "kept"]);
    } finally {
      await client.close();
    }
  });

  it("maxMessages: only the newest N are kept (hot state), bytes follow", async () => {
    const s = store({ maxMessages: 3 });
    for (let i = 0; i < 5; i++) await s.append("c", msg(i));
    expect((await s.read("c")).map((m) => m.metadata?.id)).toEqual(["m2", "m3", "m4"]);
    const [summary] = await s.listSessions();
    expect(summary).toMatchObject({ sessionId: "c", count: 3, bytes: 3 * (JSON.stringify(msg(2)).length + 1) });
  });

  it("clearRun drops exactly that run's messages, atomically, keeping order", async () => {
    const s = store();
    await s.appendMany("r", [msg(1), msg(2, "run-a"), msg(3), msg(4, "run-b"), msg(5, "run-a")]);
    await s.clearRun("r", "run-a");
    expect((await s.read("r")).map((m) => m.metadata?.id)).toEqual(["m1", "m3", "m4"]);
  });

  it("cannot connect at open → STORAGE_UNAVAILABLE within the connect timeout (context-persistent then falls back)", async () => {
    const s = new RedisStore({ url: "redis://127.0.0.1:1", connectTimeoutMs: 500 });
    stores.push(s);
    const started = Date.now();
    await expect(s.open("x")).rejects.toMatchObject({ code: "STORAGE_UNAVAILABLE" });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("server gone: a write fails after the bounded retries with STORAGE_WRITE_FAILED; when it is back the store works again", async () => {
    const server = await startPrivateRedis();
    const s = new RedisStore({ url: server.url, keyPrefix: "amp:", retry: { attempts: 3, baseDelayMs: 20, maxDelayMs: 40 } });
    stores.push(s);
    try {
      await s.append("x", msg(1));
      await server.stop();
      // Once the client knows the server is gone (a read fails), a write is refused before it is
      // sent: FAILED is then true. (An append sent before the client noticed may have reached a
      // server: that one is STORAGE_WRITE_UNCERTAIN, redis-uncertain-outcome.test.ts.)
      await expect(s.count("x")).rejects.toMatchObject({ code: "STORAGE_UNAVAILABLE" });
      const failed = await s.append("x", msg(2)).catch((e: unknown) => e);
      expect(failed).toMatchObject({ code: "STORAGE_WRITE_FAILED" });
      expect(String((failed as Error).message)).toContain("after 3 tries");
      await server.start();
      // The client reconnects in the background; the store's retries ride it out.
      const back = new RedisStore({ url: server.url, keyPrefix: "amp:", retry: { attempts: 40, baseDelayMs: 25, maxDelayMs: 100 } });
      stores.push(back);
      await back.append("x", msg(3));
      expect((await back.read("x")).map((m) => m.metadata?.id)).toEqual(["m3"]); // the private server keeps nothing on disk
    } finally {
      await Promise.allSettled(stores.splice(0).map((x) => x.close()));
      await server.stop();
    }
  });

  it("clients are shared per URL and closed with the last store: a child process exits by itself after close()", async () => {
    const a = store();
    const b = store();
    await a.append("s", msg(1));
    await b.append("s", msg(2));
    await a.close();
    expect(openRedisClients()).toBeGreaterThan(0);
    await b.close();
    expect(openRedisClients()).toBe(0);
    const script = await bundleRedisWriter();
    const prefix = testKeyPrefix();
    prefixes.push(prefix);
    const child = startWriter(script, ["exit", REDIS_URL, prefix, "s", "1", "5"]);
    const timer = setTimeout(() => child.child.kill("SIGKILL"), 8_000);
    const { code, signal } = await child.exited;
    clearTimeout(timer);
    expect(signal).toBeNull();
    expect(code).toBe(0);
    expect(child.lines).toContain("closed");
    // The session's list, its meta hash, its message-id set, the index — and one write-id key per append (expire after 10 min).
    const keys = await keysUnder(prefix);
    expect(keys.filter((k) => !k.startsWith(`${prefix}w:`))).toEqual([`${prefix}i:s`, `${prefix}index`, `${prefix}m:s`, `${prefix}s:s`].sort());
    expect(keys.filter((k) => k.startsWith(`${prefix}w:`))).toHaveLength(5);
  });

  it("bad options are INVALID_ARGUMENT naming the option", () => {
    expect(() => new RedisStore({ url: "http://x" })).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "store.url" }) }));
    expect(() => new RedisStore({ ttlSeconds: 0 })).toThrowError(expect.objectContaining({ details: expect.objectContaining({ path: "store.ttlSeconds" }) }));
    expect(() => new RedisStore({ maxMessages: 1.5 })).toThrowError(expect.objectContaining({ details: expect.objectContaining({ path: "store.maxMessages" }) }));
    expect(() => new RedisStore({ retry: { tries: 3 } as never })).toThrowError(expect.objectContaining({ details: expect.objectContaining({ path: "store.retry.tries" }) }));
  });
});
