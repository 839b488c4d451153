import { createServer, connect, type Server, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresStore, type PostgresStoreOptions } from "@amplifier-ts/store-postgres";
import { dropSchemas, queryOnce, testSchemaName } from "../../../test/stores/postgres-support.js";

/**
 * Retries against the real server through a TCP proxy this test controls: the proxy can cut every
 * connection (the server "goes away") and refuse new ones while counting them, so the number of
 * tries and the error after them are observable without restarting PostgreSQL.
 */
const schemas: string[] = [];
afterAll(() => dropSchemas(...schemas));

interface Proxy {
  url(schema?: string): string;
  /** Connections attempted so far. */
  attempts: number;
  /** true: accept and forward; false: accept and drop at once. */
  forwarding: boolean;
  /** The server's replies on the connections open now vanish; the connections are cut `afterMs` later. */
  loseReplies(afterMs: number): void;
  cutAll(): void;
  close(): Promise<void>;
}

async function startProxy(): Promise<Proxy> {
  const sockets = new Set<Socket>();
  const pairs = new Set<{ swallow: boolean; cut(): void }>();
  const proxy: Proxy = {
    url: () => `postgres://postgres@127.0.0.1:${(server.address() as { port: number }).port}/test`,
    attempts: 0,
    forwarding: true,
    loseReplies: (afterMs) => {
      const now = [...pairs];
      for (const pair of now) pair.swallow = true;
      setTimeout(() => now.forEach((p) => p.cut()), afterMs);
    },
    cutAll: () => {
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    close: () => {
      proxy.cutAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((client) => {
    proxy.attempts++;
    if (!proxy.forwarding) {
      client.destroy();
      return;
    }
    const upstream = connect(5432, "127.0.0.1");
    sockets.add(client).add(upstream);
    const pair = { swallow: false, cut: () => { client.destroy(); upstream.destroy(); } };
    pairs.add(pair);
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", (chunk) => {
      if (!pair.swallow) client.write(chunk);
    });
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return proxy;
}

const user = (text: string) => ({ role: "user" as const, content: text, metadata: { id: text } });

/** A store on a fresh schema whose connections go through a new proxy; both closed after `body` (the schema after all tests). */
async function behindProxy(options: Pick<PostgresStoreOptions, "retry" | "poolSize">, body: (setup: { proxy: Proxy; store: PostgresStore; schema: string }) => Promise<void>): Promise<void> {
  const proxy = await startProxy();
  const schema = testSchemaName();
  schemas.push(schema);
  const store = new PostgresStore({ url: proxy.url(), schema, ...options });
  try {
    await body({ proxy, store, schema });
  } finally {
    await store.close();
    await proxy.close();
  }
}

describe("PostgresStore retries", () => {
  it("recovers when its connections are cut: the append after the cut succeeds, stored once", async () => {
    await behindProxy({ retry: { attempts: 5, baseDelayMs: 1, maxDelayMs: 5 } }, async ({ proxy, store }) => {
      await store.append("s1", user("before"));
      proxy.cutAll();
      await store.append("s1", user("after"));
      expect((await store.read("s1")).map((m) => m.content)).toEqual(["before", "after"]);
    });
  });

  it("an append whose acknowledgement is lost (committed, then the connection died) is not stored twice by its retry", async () => {
    await behindProxy({ poolSize: 1, retry: { attempts: 5, baseDelayMs: 1, maxDelayMs: 5 } }, async ({ proxy, store, schema }) => {
      await store.append("s1", user("first"));
      proxy.loseReplies(300); // the next statement reaches the server and commits; its reply never arrives
      await store.append("s1", user("second"));
      await store.append("s1", user("third"));
      expect((await store.read("s1")).map((m) => m.content)).toEqual(["first", "second", "third"]);
      const rows = await queryOnce<{ content: string }>(`SELECT message->>'content' AS content FROM "${schema}".amplifier_messages ORDER BY seq`);
      expect(rows.map((r) => r.content)).toEqual(["first", "second", "third"]);
    });
  });

  it("a server that stays away: the write rejects with STORAGE_WRITE_FAILED after exactly `attempts` tries, nothing stored", async () => {
    await behindProxy({ retry: { attempts: 4, baseDelayMs: 1, maxDelayMs: 4 } }, async ({ proxy, store, schema }) => {
      await store.append("s1", user("kept"));
      proxy.forwarding = false;
      proxy.cutAll();
      await new Promise((resolve) => setTimeout(resolve, 50)); // the pool sees its idle connections close
      const before = proxy.attempts;
      await expect(store.append("s1", user("lost?"))).rejects.toMatchObject({ code: "STORAGE_WRITE_FAILED", details: { module: "stores/postgres" } });
      expect(proxy.attempts - before).toBe(4);
      await expect(store.read("s1")).rejects.toMatchObject({ code: "STORAGE_UNAVAILABLE" });

      proxy.forwarding = true;
      expect((await store.read("s1")).map((m) => m.content)).toEqual(["kept"]);
      const rows = await queryOnce<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".amplifier_messages`);
      expect(rows[0]!.n).toBe("1");
    });
  });

  it("does not retry what retrying cannot fix (a refused message fails on the first try)", async () => {
    await behindProxy({ retry: { attempts: 5, baseDelayMs: 1, maxDelayMs: 5 } }, async ({ proxy, store }) => {
      await store.open("s1");
      const before = proxy.attempts;
      await expect(store.append("s1", user("a\u0000b"))).rejects.toMatchObject({ code: "INVALID_MESSAGE" });
      expect(proxy.attempts).toBe(before);
    });
  });
});
