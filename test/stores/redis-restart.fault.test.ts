import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RedisStore } from "../../src/modules/stores.js";
import { appendStream } from "./append-stream.js";
import { startPrivateRedis } from "./redis-support.js";

/**
 * Server restart in the middle of a stream (issue 6), for Redis. A fault test (runs alone). The
 * server is a private redis-server with an append-only file fsynced on every write — what a
 * Redis that must not lose acknowledged writes runs with (the machine's shared Redis keeps
 * nothing on disk, so its restart would lose everything by design). One writer appends
 * numbered messages without pause; the test kills the server (SIGKILL) after 50 acknowledgements
 * and starts it again on the same port and files. The store's bounded retries ride through the
 * outage: no append rejects, every acknowledged message is there exactly once and in order.
 */
describe("RedisStore across a server restart", () => {
  it("retries through a kill + restart: every acknowledged message once, in order; the store works after", async () => {
    const dir = await mkdtemp(join(tmpdir(), "amp-redis-aof-"));
    const server = await startPrivateRedis({ dir, appendOnly: true });
    const store = new RedisStore({ url: server.url, keyPrefix: "fault:", retry: { attempts: 60, baseDelayMs: 20, maxDelayMs: 250 } });
    try {
      await store.open("stream");
      const stream = appendStream(store, "stream");
      const { acked, failures } = stream;
      await stream.until(50);
      await server.stop();
      await new Promise((r) => setTimeout(r, 200));
      await server.start();
      const afterRestart = acked.length;
      await stream.until(afterRestart + 50);
      await stream.stop();

      expect(failures).toEqual([]);
      const reader = new RedisStore({ url: server.url, keyPrefix: "fault:" });
      const seqs = (await reader.read("stream")).map((m) => m.metadata?.seq);
      expect(seqs).toEqual(Array.from({ length: acked.length }, (_, i) => i));
      await reader.close();
      await store.append("stream", { role: "user", content: "after", metadata: { id: "after" } });
      expect((await store.read("stream", { offset: acked.length })).map((m) => m.content)).toEqual(["after"]);
    } finally {
      await store.close();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
