import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Coordinator } from "../../core/coordinator.js";
import { type Session } from "../../core/session.js";
import { createSession } from "../../src/session/index.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";
import { openRedisClients } from "../../modules/store-redis/redis-clients.js";
import { RedisStore } from "../../modules/store-redis/redis-store.js";
import { dropPrefixes, REDIS_URL, startPrivateRedis, testKeyPrefix } from "./redis-support.js";

/** context-persistent with `store: { type: "redis" }`: resume through Redis, fallback and strict, a server lost after mount. */
const keyPrefix = testKeyPrefix();
const sessions: Session[] = [];
afterEach(async () => {
  await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
});
afterAll(() => dropPrefixes(keyPrefix));

async function open(store: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Session> {
  const session = await createSession({ session: { context: { module: "context-persistent", config: { sessionId: "redis-session", store, ...extra } } } });
  sessions.push(session);
  return session;
}

const unreachable = { type: "redis", url: "redis://127.0.0.1:1", connectTimeoutMs: 300 };

describe("context-persistent on the redis store", () => {
  it("resumes a session from Redis: close, mount again, same history; the client is closed with the session", async () => {
    const first = await open({ type: "redis", url: REDIS_URL, keyPrefix });
    await first.context.addMessage({ role: "user", content: "hello" });
    await first.context.addMessage({ role: "assistant", content: "hi", metadata: { id: "a-1" } });
    await first.context.addMessage({ role: "assistant", content: "thinking…", metadata: { ephemeral: true } });
    const before = (await first.context.getMessages()).filter((m) => !m.metadata?.ephemeral);
    await first.close();
    expect(openRedisClients()).toBe(0);
    const second = await open({ type: "redis", url: REDIS_URL, keyPrefix });
    expect(await second.context.getMessages()).toEqual(before);
  });

  it("an unreachable server → memory fallback with context:storage_fallback { store: 'redis' }", async () => {
    const coordinator = new Coordinator({ sessionId: "redis-fallback" });
    const events: { reason: string; store: string }[] = [];
    coordinator.hooks.on("context:storage_fallback", (d) => void events.push(d as { reason: string; store: string }));
    const context = await mountPersistent(coordinator, { store: unreachable as never });
    await context.addMessage({ role: "user", content: "still works" });
    expect((await context.getMessages()).map((m) => m.content)).toEqual(["still works"]);
    expect(events).toEqual([expect.objectContaining({ store: "redis", reason: expect.stringContaining("127.0.0.1:1") })]);
    await coordinator.cleanup();
    expect(openRedisClients()).toBe(0);
  });

  it("server lost after mount: addMessage rejects with STORAGE_WRITE_FAILED after the bounded retries and keeps nothing; back: addMessage stores again", async () => {
    const dir = await mkdtemp(join(tmpdir(), "amp-redis-cp-"));
    const server = await startPrivateRedis({ dir, appendOnly: true }); // fsync-always AOF: what was acknowledged survives the restart
    try {
      const session = await open({ type: "redis", url: server.url, keyPrefix: "cp:", retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 } });
      await session.context.addMessage({ role: "user", content: "kept", metadata: { id: "u-1" } });
      await server.stop();
      // Wait until the shared client knows the server is gone (a read through it fails): a write is
      // then refused before it is sent, so FAILED is true. (One sent before that may have reached
      // the server: STORAGE_WRITE_UNCERTAIN — test/stores/redis-kill-appends.fault.test.ts.)
      const probe = new RedisStore({ url: server.url, keyPrefix: "cp:", retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 } });
      await expect(probe.count("redis-session")).rejects.toMatchObject({ code: "STORAGE_UNAVAILABLE" });
      await probe.close();
      await expect(session.context.addMessage({ role: "user", content: "refused", metadata: { id: "u-2" } })).rejects.toMatchObject({
        code: "STORAGE_WRITE_FAILED",
        message: expect.stringContaining("after 3 tries"),
      });
      expect((await session.context.getMessages()).map((m) => m.content)).toEqual(["kept"]);
      await server.start();
      const deadline = Date.now() + 10_000;
      let stored = false;
      while (!stored && Date.now() < deadline) {
        stored = await session.context.addMessage({ role: "user", content: "again", metadata: { id: "u-3" } }).then(() => true, () => false);
        if (!stored) await new Promise((r) => setTimeout(r, 50));
      }
      expect(stored).toBe(true);
      await session.close();
      sessions.splice(sessions.indexOf(session), 1);
      const reopened = await open({ type: "redis", url: server.url, keyPrefix: "cp:" });
      expect((await reopened.context.getMessages()).map((m) => m.content)).toEqual(["kept", "again"]);
    } finally {
      await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("with strict: true an unreachable server fails the mount with STORAGE_UNAVAILABLE", async () => {
    await expect(open(unreachable, { strict: true })).rejects.toMatchObject({
      code: "STORAGE_UNAVAILABLE",
      details: expect.objectContaining({ mount: expect.objectContaining({ path: "session.context", code: "MODULE_MOUNT_FAILED" }) }),
      cause: expect.objectContaining({ code: "STORAGE_UNAVAILABLE", details: expect.objectContaining({ module: "stores/redis" }) }),
    });
  });
});
