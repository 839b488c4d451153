import { createServer, connect, type Server, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../../src/modules/stores.js";
import { backoffDelay, DEFAULT_RETRY, isTransient } from "@amplifier-ts/pg-kit";
import { dropSchemas, queryOnce, testSchemaName } from "./postgres-support.js";

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

describe("PostgresStore retries", () => {
  it("recovers when its connections are cut: the append after the cut succeeds, stored once", async () => {
    const proxy = await startProxy();
    const schema = testSchemaName();
    schemas.push(schema);
    const store = new PostgresStore({ url: proxy.url(), schema, retry: { attempts: 5, baseDelayMs: 1, maxDelayMs: 5 } });
    await store.append("s1", user("before"));
    proxy.cutAll();
    await store.append("s1", user("after"));
    expect((await store.read("s1")).map((m) => m.content)).toEqual(["before", "after"]);
    await store.close();
    await proxy.close();
  });

  it("an append whose acknowledgement is lost (committed, then the connection died) is not stored twice by its retry", async () => {
    const proxy = await startProxy();
    const schema = testSchemaName();
    schemas.push(schema);
    const store = new PostgresStore({ url: proxy.url(), schema, poolSize: 1, retry: { attempts: 5, baseDelayMs: 1, maxDelayMs: 5 } });
    await store.append("s1", user("first"));
    proxy.loseReplies(300); // the next statement reaches the server and commits; its reply never arrives
    await store.append("s1", user("second"));
    await store.append("s1", user("third"));
    expect((await store.read("s1")).map((m) => m.content)).toEqual(["first", "second", "third"]);
    const rows = await queryOnce<{ content: string }>(`SELECT message->>'content' AS content FROM "${schema}".amplifier_messages ORDER BY seq`);
    expect(rows.map((r) => r.content)).toEqual(["first", "second", "third"]);
    await store.close();
    await proxy.close();
  });

  it("a server that stays away: the write rejects with STORAGE_WRITE_FAILED after exactly `attempts` tries, nothing stored", async () => {
    const proxy = await startProxy();
    const schema = testSchemaName();
    schemas.push(schema);
    const store = new PostgresStore({ url: proxy.url(), schema, retry: { attempts: 4, baseDelayMs: 1, maxDelayMs: 4 } });
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
    await store.close();
    await proxy.close();
  });

  it("does not retry what retrying cannot fix (a refused message fails on the first try)", async () => {
    const proxy = await startProxy();
    const schema = testSchemaName();
    schemas.push(schema);
    const store = new PostgresStore({ url: proxy.url(), schema, retry: { attempts: 5, baseDelayMs: 1, maxDelayMs: 5 } });
    await store.open("s1");
    const before = proxy.attempts;
    await expect(store.append("s1", user("a\u0000b"))).rejects.toMatchObject({ code: "INVALID_MESSAGE" });
    expect(proxy.attempts).toBe(before);
    await store.close();
    await proxy.close();
  });

  it("classifies failures: connection and shutdown errors are transient, data errors are not", () => {
    expect(isTransient(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))).toBe(true);
    expect(isTransient(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }))).toBe(true);
    expect(isTransient(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isTransient(Object.assign(new Error("could not serialize access"), { code: "40001" }))).toBe(true);
    expect(isTransient(Object.assign(new Error("invalid input syntax for type json"), { code: "22P02" }))).toBe(false);
    expect(isTransient(Object.assign(new Error("relation does not exist"), { code: "42P01" }))).toBe(false);
  });

  it("backs off exponentially within [ceiling/2, ceiling], the ceiling capped at maxDelayMs", () => {
    const policy = { ...DEFAULT_RETRY, baseDelayMs: 10, maxDelayMs: 100 };
    for (let attempt = 1; attempt <= 10; attempt++) {
      const ceiling = Math.min(100, 10 * 2 ** (attempt - 1));
      for (let i = 0; i < 50; i++) {
        const delay = backoffDelay(policy, attempt);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
        expect(delay).toBeLessThanOrEqual(ceiling);
      }
    }
  });
});
