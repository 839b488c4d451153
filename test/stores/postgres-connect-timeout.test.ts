import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresStore } from "../../src/modules/stores.js";
import { withRetry } from "@amplifier-ts/pg-kit";
import { DEFAULT_CONNECT_TIMEOUT_MS } from "../../modules/store-postgres/postgres-store.js";
import { livePoolCount } from "@amplifier-ts/pg-kit";
import { createSession } from "../../src/session/index.js";

/**
 * Issue 25, item 10: an unreachable PostgreSQL took ~5 s of retry backoff (8 tries, 50 ms → 2 s)
 * before context-persistent could fall back — and a server that swallows packets 8 × 5 s. The
 * first contact is now bounded by `store.connectTimeoutMs` (default 3000 ms): each connection
 * attempt, and connect + migrations with their retries together. No timing is asserted: the
 * number of tries is, which the deadline bounds whatever the machine's load.
 */
const servers: { server: Server; sockets: Set<Socket> }[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(({ server, sockets }) => {
      // close() waits for open connections: the silent server's are still held.
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

/** A TCP server on loopback that counts connections and either drops them at once or never answers. */
async function fakeServer(behaviour: "drop" | "silent"): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    connections++;
    if (behaviour === "drop") socket.destroy();
    else sockets.add(socket.on("error", () => undefined));
  });
  servers.push({ server, sockets });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `postgres://postgres@127.0.0.1:${port}/test`, connections: () => connections };
}

describe("withRetry's deadline", () => {
  it("no retry would start after the deadline: the last failure is thrown instead", async () => {
    let tries = 0;
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const failing = async () => {
      tries++;
      throw refused;
    };
    await expect(withRetry({ attempts: 8, baseDelayMs: 50, maxDelayMs: 50 }, failing, Date.now())).rejects.toBe(refused);
    expect(tries).toBe(1);
    tries = 0;
    await expect(withRetry({ attempts: 3, baseDelayMs: 1, maxDelayMs: 1 }, failing)).rejects.toBe(refused);
    expect(tries, "without a deadline: attempts as before").toBe(3);
  });
});

describe("PostgresStore: connectTimeoutMs", () => {
  it("a server that drops every connection: open gives up within the deadline, not after every retry (STORAGE_UNAVAILABLE naming the option)", async () => {
    const server = await fakeServer("drop");
    // 50 tries 25-50 ms apart would take over a second; a 200 ms deadline leaves room for at most 1 + 200/25.
    const store = new PostgresStore({ url: server.url, connectTimeoutMs: 200, retry: { attempts: 50, baseDelayMs: 50, maxDelayMs: 50 } });
    await expect(store.open("s1")).rejects.toMatchObject({
      code: "STORAGE_UNAVAILABLE",
      details: { module: "stores/postgres", hint: expect.stringContaining("store.connectTimeoutMs") },
    });
    expect(server.connections()).toBeGreaterThanOrEqual(1);
    expect(server.connections()).toBeLessThanOrEqual(9);
    await store.close();
    expect(livePoolCount()).toBe(0);
  });

  it("a server that never answers: each connection attempt is bounded by it too", async () => {
    const server = await fakeServer("silent");
    const store = new PostgresStore({ url: server.url, connectTimeoutMs: 300 });
    await expect(store.open("s1")).rejects.toMatchObject({ code: "STORAGE_UNAVAILABLE" });
    // One attempt fills the deadline: no retry starts after it.
    expect(server.connections()).toBe(1);
    await store.close();
    expect(livePoolCount()).toBe(0);
  });

  it("reaches the store from context-persistent's `store` block (the driver passes it on)", async () => {
    const server = await fakeServer("silent");
    const events: unknown[] = [];
    const session = await createSession(
      { session: { context: { module: "context-persistent", config: { store: { type: "postgres", url: server.url, connectTimeoutMs: 300 } } } } },
      { on: { "context:storage_fallback": (event) => void events.push(event) } },
    );
    // With the 3000 ms default the pool would still be connecting; with 300 ms one attempt filled the deadline.
    expect(events).toEqual([expect.objectContaining({ store: "postgres" })]);
    expect(server.connections()).toBe(1);
    await session.close();
    await expect(
      createSession({ session: { context: { module: "context-persistent", config: { store: { type: "postgres", url: server.url, connectTimeoutMs: 0 } } } } }),
    ).rejects.toMatchObject({ cause: expect.objectContaining({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "store.connectTimeoutMs" }) }) });
  });

  it("is a whole number of milliseconds (INVALID_ARGUMENT naming store.connectTimeoutMs); the default is stated", () => {
    for (const given of [0, -1, 1.5, Number.NaN, 2 ** 31, "3000"]) {
      expect(() => new PostgresStore({ connectTimeoutMs: given as number }), String(given)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "store.connectTimeoutMs" }) }));
    }
    expect(DEFAULT_CONNECT_TIMEOUT_MS).toBe(3_000);
  });
});
