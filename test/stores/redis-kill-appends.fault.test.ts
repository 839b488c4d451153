import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { RedisStore } from "../../src/modules/stores.js";
import { startPrivateRedis } from "./redis-support.js";

/**
 * Appends while the server is killed (issue 25, item 4). A fault test (runs alone): a private
 * redis-server with an append-only file fsynced on every write is SIGKILLed and restarted KILLS
 * times while a context manager (context-persistent's, over a RedisStore with short retries, so
 * failures do happen) appends without pause. Every append ends in one of three ways:
 *
 * | outcome | must hold |
 * |---|---|
 * | resolved | the message is stored (checked at the end) |
 * | STORAGE_WRITE_FAILED | it is NOT stored — checked once the server is back, before anything is retried |
 * | STORAGE_WRITE_UNCERTAIN | anything (it may or may not be) |
 *
 * Then the caller retries every rejected message (the same message object, as the error advises),
 * and a new store instance — a resume — must read exactly the live history: every message once, in
 * the live order, no duplicates. (Before this fix a rejected append could be stored and its retry
 * stored it twice: /work/shared/repro/r8-redis-failed-append-was-stored.mjs.)
 */
const KILLS = 6;

describe("RedisStore: appends through server kills", () => {
  it("each append resolves (stored), fails FAILED (absent) or UNCERTAIN; after retrying every failure the resumed history equals the live one, once each", async () => {
    const dir = await mkdtemp(join(tmpdir(), "amp-redis-kills-"));
    const server = await startPrivateRedis({ dir, appendOnly: true });
    const options = { url: server.url, keyPrefix: "kills:", retry: { attempts: 3, baseDelayMs: 20, maxDelayMs: 100, outcomeWindowMs: 300 } };
    const store = new RedisStore(options);
    const ctx = new HistoryContextManager({ moduleName: "context-persistent", store, sessionId: "s" });
    const messages: Message[] = [];
    const failed = new Map<number, string>();
    let stop = false;
    try {
      const writer = (async () => {
        for (let n = 0; !stop; n++) {
          const message: Message = { role: "user", content: `m${n}` }; // no id: the manager makes one up, as for most callers
          messages.push(message);
          try {
            await ctx.addMessage(message);
          } catch (error) {
            failed.set(n, (error as { code?: string }).code ?? String(error));
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      })();
      for (let kill = 0; kill < KILLS; kill++) {
        await new Promise((r) => setTimeout(r, 300 + Math.random() * 400));
        await server.stop();
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 400));
        await server.start();
      }
      await new Promise((r) => setTimeout(r, 300));
      stop = true;
      await writer;

      const codes = new Set(failed.values());
      for (const code of codes) expect(["STORAGE_WRITE_FAILED", "STORAGE_WRITE_UNCERTAIN"]).toContain(code);
      const reader = new RedisStore({ url: server.url, keyPrefix: "kills:" });
      const storedNow = new Set((await reader.read("s")).map((m) => m.content));
      await reader.close();
      const failedButStored = [...failed].filter(([n, code]) => code === "STORAGE_WRITE_FAILED" && storedNow.has(`m${n}`));
      expect(failedButStored, "appends rejected with STORAGE_WRITE_FAILED that are stored").toEqual([]);
      const resolved = messages.map((_, n) => n).filter((n) => !failed.has(n));
      expect(resolved.filter((n) => !storedNow.has(`m${n}`)), "acknowledged appends missing from the store").toEqual([]);

      // The caller retries every rejected append, in order.
      for (const n of failed.keys()) await ctx.addMessage(messages[n]!);
      const live = (await ctx.getMessages()).map((m) => [m.metadata?.id, m.content]);
      await ctx.close();
      const resumed = new RedisStore({ url: server.url, keyPrefix: "kills:" });
      const stored = (await resumed.open("s")).messages.map((m) => [m.metadata?.id, m.content]);
      await resumed.close();
      expect(stored).toEqual(live);
      const contents = stored.map(([, content]) => content);
      expect(new Set(contents).size, "no message twice").toBe(contents.length);
      expect([...contents].sort()).toEqual(messages.map((m) => m.content).sort());
      console.log(`${KILLS} kills: ${messages.length} appends, ${failed.size} rejected (${[...codes].map((c) => `${c} ${[...failed.values()].filter((v) => v === c).length}`).join(", ")}); resumed ${stored.length} = live`);
    } finally {
      stop = true;
      await store.close().catch(() => undefined);
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
