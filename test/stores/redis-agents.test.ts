import { createClient } from "redis";
import { afterEach, describe, expect, it } from "vitest";
import { RedisStore, redisKeys } from "../../modules/store-redis/index.js";
import { dropPrefixes, keysUnder, REDIS_URL, testKeyPrefix } from "./redis-support.js";

/**
 * Agent scoping in Redis (contracts/HISTORY-STORES.md): the key layout, and data written in the
 * layout from before agents (`<prefix>s:<id>`, `<prefix>m:<id>`, `<prefix>index`, as the
 * previous RedisStore wrote it) read as the default agent's without a migration step.
 */
const prefixes: string[] = [];
const stores: RedisStore[] = [];
afterEach(async () => {
  await Promise.allSettled(stores.splice(0).map((s) => s.close()));
  await dropPrefixes(...prefixes.splice(0));
});

function store(): { store: RedisStore; prefix: string } {
  const prefix = testKeyPrefix();
  prefixes.push(prefix);
  const made = new RedisStore({ url: REDIS_URL, keyPrefix: prefix });
  stores.push(made);
  return { store: made, prefix };
}

const message = (text: string, runId?: string) => ({ role: "user" as const, content: text, metadata: { id: text, timestamp: "2025-01-01T00:00:00.000Z", ...(runId ? { runId } : {}) } });

describe("RedisStore agents", () => {
  it("builds every key in redisKeys: the default agent keeps the old layout, another agent's keys sit under a:<agent>:", async () => {
    const { store: s, prefix } = store();
    await s.append("s1", message("d"));
    await s.append("s1", message("a"), { agentId: "alpha" });
    const written = (await keysUnder(prefix)).filter((k) => !k.startsWith(`${prefix}w:`));
    // The message-id sets (`i:`, idempotent appends) sit beside each list.
    expect(written).toEqual([`${prefix}a:alpha:i:s1`, `${prefix}a:alpha:index`, `${prefix}a:alpha:m:s1`, `${prefix}a:alpha:s:s1`, `${prefix}i:s1`, `${prefix}index`, `${prefix}m:s1`, `${prefix}s:s1`]);
    const keys = redisKeys(prefix, "alpha");
    expect([keys.list("s1"), keys.meta("s1"), keys.ids("s1"), keys.index]).toEqual([`${prefix}a:alpha:s:s1`, `${prefix}a:alpha:m:s1`, `${prefix}a:alpha:i:s1`, `${prefix}a:alpha:index`]);
    const defaults = redisKeys(prefix, "default");
    expect([defaults.list("s1"), defaults.meta("s1"), defaults.ids("s1"), defaults.index]).toEqual([`${prefix}s:s1`, `${prefix}m:s1`, `${prefix}i:s1`, `${prefix}index`]);
    expect(defaults.writeId()).toMatch(new RegExp(`^${prefix}w:[0-9a-f-]{36}$`));
  });

  it("migration: sessions written in the layout from before agents are the default agent's, unchanged, and other agents do not see them", async () => {
    const { store: s, prefix } = store();
    // The old layout, written directly: what a RedisStore without agents left in Redis.
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    try {
      await client.rPush(`${prefix}s:old-session`, [JSON.stringify(message("one")), JSON.stringify(message("two", "r1"))]);
      await client.hSet(`${prefix}m:old-session`, { bytes: "80", updatedAt: "2025-06-01T00:00:00.000Z" });
      await client.zAdd(`${prefix}index`, { score: 0, value: "old-session" });
    } finally {
      await client.close();
    }
    expect((await s.open("old-session")).messages.map((m) => m.content)).toEqual(["one", "two"]);
    expect((await s.open("old-session", { agentId: "default" })).messages.map((m) => m.content)).toEqual(["one", "two"]);
    expect(await s.listSessions()).toEqual([{ sessionId: "old-session", count: 2, bytes: 80, updatedAt: "2025-06-01T00:00:00.000Z" }]);
    expect(await s.read("old-session", { agentId: "alpha" })).toEqual([]);
    expect(await s.listSessions({ agentId: "alpha" })).toEqual([]);
    // … and they go on as the default agent's sessions.
    await s.append("old-session", message("three"));
    await s.clearRun("old-session", "r1");
    expect((await s.read("old-session")).map((m) => m.content)).toEqual(["one", "three"]);
    expect((await keysUnder(prefix)).filter((k) => !k.startsWith(`${prefix}w:`))).toEqual([`${prefix}index`, `${prefix}m:old-session`, `${prefix}s:old-session`]);
  });

  it("an agent's expired session leaves its index when listed, the other agent's index untouched", async () => {
    const { store: s, prefix } = store();
    await s.append("s1", message("a"), { agentId: "alpha" });
    await s.append("s1", message("b"), { agentId: "beta" });
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    try {
      await client.del([`${prefix}a:alpha:s:s1`, `${prefix}a:alpha:m:s1`]);
      expect(await s.listSessions({ agentId: "alpha" })).toEqual([]);
      expect(await client.zRange(`${prefix}a:alpha:index`, 0, -1)).toEqual([]);
      expect(await client.zRange(`${prefix}a:beta:index`, 0, -1)).toEqual(["s1"]);
    } finally {
      await client.close();
    }
  });
});
