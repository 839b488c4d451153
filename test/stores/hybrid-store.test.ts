/**
 * The hybrid store on real servers: writes to both (PostgreSQL the record, Redis the cache), the
 * hot list capped at recentN; Redis down → context:storage_degraded and everything goes on against
 * PostgreSQL; Redis back → hot lists rebuilt from PostgreSQL and context:storage_restored. And the
 * `hybrid` strategy reading the hot side (recentN) + PostgreSQL backfill (≤ maxTotal), by id.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { Coordinator } from "../../core/coordinator.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";
import { createHistoryStore, HybridStore, RedisStore } from "../../src/modules/stores.js";
import type { HybridStoreEvent } from "../../modules/stores/hybrid-store.js";
import { dropSchemas, PG_URL, testSchemaName } from "./postgres-support.js";
import { dropPrefixes, REDIS_URL, startPrivateRedis, testKeyPrefix } from "./redis-support.js";

const schemas: string[] = [];
const prefixes: string[] = [];
afterAll(async () => {
  await dropSchemas(...schemas);
  await dropPrefixes(...prefixes);
});
const fresh = () => {
  const schema = testSchemaName();
  const keyPrefix = testKeyPrefix();
  schemas.push(schema);
  prefixes.push(keyPrefix);
  return { schema, keyPrefix };
};
const msg = (i: number): Message => ({ role: i % 2 ? "assistant" : "user", content: `m${i}`, metadata: { id: `m${i}` } });
const ids = (ms: readonly Message[]) => ms.map((m) => m.metadata?.id);

describe("hybrid store", () => {
  it("writes go to both; the hot list holds the last recentN; reads answer from the record", async () => {
    const { schema, keyPrefix } = fresh();
    const store = createHistoryStore({ type: "hybrid", recentN: 4, hot: { type: "redis", url: REDIS_URL, keyPrefix }, cold: { type: "postgres", url: PG_URL, schema } }) as HybridStore;
    try {
      for (let i = 0; i < 10; i++) await store.append("s", msg(i));
      expect(ids(await store.read("s"))).toEqual(ids(Array.from({ length: 10 }, (_, i) => msg(i))));
      expect(ids(await store.hot.read("s"))).toEqual(["m6", "m7", "m8", "m9"]);
      expect(ids(await store.recent("s", 3))).toEqual(["m7", "m8", "m9"]);
    } finally {
      await store.close();
    }
  });

  it("a hot list that is behind (written while Redis was elsewhere) is rebuilt from the record at open", async () => {
    const { schema, keyPrefix } = fresh();
    const config = { type: "hybrid" as const, recentN: 3, hot: { type: "redis" as const, url: REDIS_URL, keyPrefix }, cold: { type: "postgres" as const, url: PG_URL, schema } };
    const cold = createHistoryStore(config.cold);
    await cold.appendMany("s", [msg(0), msg(1), msg(2), msg(3), msg(4)]);
    await cold.close();
    const store = createHistoryStore(config) as HybridStore;
    try {
      expect(ids((await store.open("s")).messages)).toHaveLength(5);
      expect(ids(await store.hot.read("s"))).toEqual(["m2", "m3", "m4"]);
    } finally {
      await store.close();
    }
  });

  it("Redis down: context:storage_degraded once, appends and reads go on against PostgreSQL; back: hot rebuilt, context:storage_restored", async () => {
    const server = await startPrivateRedis();
    const { schema } = fresh();
    const events: HybridStoreEvent[] = [];
    const store = createHistoryStore(
      { type: "hybrid", recentN: 5, probeIntervalMs: 50, hot: { type: "redis", url: server.url, keyPrefix: "h:", retry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 10 } }, cold: { type: "postgres", url: PG_URL, schema } },
      { onEvent: (e) => void events.push(e) },
    ) as HybridStore;
    try {
      await store.append("s", msg(0));
      await server.stop();
      await store.append("s", msg(1));
      await store.append("s", msg(2));
      expect(store.degraded).toBe(true);
      expect(events.map((e) => e.name)).toEqual(["context:storage_degraded"]);
      expect(events[0]!.payload).toMatchObject({ store: "hybrid", detail: { hot: "redis", cold: "postgres", sessionId: "s" } });
      expect(ids(await store.read("s"))).toEqual(["m0", "m1", "m2"]);
      expect(ids(await store.recent("s", 2))).toEqual(["m1", "m2"]); // from the record while degraded

      await server.start(); // an empty server (nothing on disk): the hot list must be rebuilt
      const deadline = Date.now() + 10_000;
      let i = 3;
      while (store.degraded && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 60));
        await store.append("s", msg(i++));
      }
      expect(store.degraded).toBe(false);
      expect(events.map((e) => e.name)).toEqual(["context:storage_degraded", "context:storage_restored"]);
      const record = await store.read("s");
      expect(ids(await store.hot.read("s"))).toEqual(ids(record.slice(-5)));
      await store.append("s", msg(99));
      expect(ids(await store.hot.read("s")).at(-1)).toBe("m99");
    } finally {
      await store.close();
      await server.stop();
    }
  });

  it("Redis back while only reads happen: a hot-side read probes it, rebuilds the session from the record and restores", async () => {
    const server = await startPrivateRedis();
    const { schema } = fresh();
    const events: HybridStoreEvent[] = [];
    const store = createHistoryStore(
      { type: "hybrid", recentN: 3, probeIntervalMs: 50, hot: { type: "redis", url: server.url, keyPrefix: "h:", retry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 10 } }, cold: { type: "postgres", url: PG_URL, schema } },
      { onEvent: (e) => void events.push(e) },
    ) as HybridStore;
    try {
      await store.appendMany("s", [msg(0), msg(1)]);
      await server.stop();
      await store.append("s", msg(2));
      expect(store.degraded).toBe(true);
      await server.start();
      const view = store.hotView();
      const deadline = Date.now() + 10_000;
      while (store.degraded && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 60));
        expect(ids(await view.read("s", { offset: Math.max(0, (await view.count("s")) - 2) }))).toEqual(["m1", "m2"]);
      }
      expect(store.degraded).toBe(false);
      expect(events.map((e) => e.name)).toEqual(["context:storage_degraded", "context:storage_restored"]);
      expect(ids(await store.hot.read("s"))).toEqual(["m0", "m1", "m2"]);
    } finally {
      await store.close();
      await server.stop();
    }
  });

  it("context-persistent on a hybrid store feeds the hybrid strategy: last recentN from Redis + PostgreSQL backfill ≤ maxTotal, by id", async () => {
    const { schema, keyPrefix } = fresh();
    const coordinator = new Coordinator({ sessionId: "hyb" });
    const degraded: unknown[] = [];
    coordinator.hooks.on("context:storage_degraded", (d) => void degraded.push(d));
    const context = await mountPersistent(coordinator, {
      strict: true,
      store: { type: "hybrid", recentN: 6, hot: { type: "redis", url: REDIS_URL, keyPrefix }, cold: { type: "postgres", url: PG_URL, schema } } as never,
      strategies: [{ use: "hybrid", recentN: 4, maxTotal: 8 }],
    });
    try {
      await context.addMessage({ role: "system", content: "rules", metadata: { id: "sys" } });
      for (let i = 0; i < 20; i++) await context.addMessage({ role: "user", content: "ok", metadata: { id: `u${i}` } }); // identical contents, distinct ids
      const window = await context.getMessagesForRequest(100_000);
      expect(ids(window)).toEqual(["sys", ...Array.from({ length: 8 }, (_, k) => `u${12 + k}`)]);
      // Another worker appends to the same session: the strategy reads the stores, so the window has it.
      const other = createHistoryStore({ type: "hybrid", recentN: 6, hot: { type: "redis", url: REDIS_URL, keyPrefix }, cold: { type: "postgres", url: PG_URL, schema } });
      await other.append("hyb", { role: "user", content: "ok", metadata: { id: "u20" } });
      await other.close();
      const shared = await context.getMessagesForRequest(100_000);
      expect(ids(shared)).toEqual(["sys", ...Array.from({ length: 8 }, (_, k) => `u${13 + k}`)]);
      expect(degraded).toEqual([]);
    } finally {
      await coordinator.cleanup();
    }
  });

  it("a hybrid inside a hybrid, or a store config that is not one, is a typed error", () => {
    expect(() => createHistoryStore({ type: "hybrid", hot: { type: "hybrid" } as never, cold: { type: "memory" } })).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(() => new HybridStore({ hot: {} as never, cold: new RedisStore() })).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });
});
