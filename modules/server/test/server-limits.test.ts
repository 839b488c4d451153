/**
 * The request limits of startServer (server-limits.ts) over real sockets: a slow
 * client is cut off, connections are capped, headers are bounded — and a live stream, whose
 * request has arrived, is not cut by the request timeout. Figures are small here so the tests are
 * quick; every wait is bounded by a generous deadline of its own, never by the machine's speed.
 */
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Memory } from "@amplifier-ts/contracts";
import { liveSessions } from "@amplifier-ts/inspector";
import { SERVER_LIMITS_DEFAULT, startServer, type RunningServer, type StartServerOptions } from "@amplifier-ts/server";
import { fixedMemory } from "./fixed-memory.js";

const running: RunningServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of running.splice(0)) await server.close();
});

/** Longest a test waits for the server to act on a limit of a few hundred ms. */
const DEADLINE_MS = 15_000;

async function serve(options: Partial<StartServerOptions> = {}) {
  const server = await startServer({ memory: fixedMemory(), port: 0, ...options });
  running.push(server);
  return { server, port: Number(new URL(server.url).port) };
}

/** A connection that writes `text` and records what comes back until the server closes it (or the deadline). */
function open(port: number, text: string) {
  const socket = connect(port, "127.0.0.1", () => socket.write(text));
  sockets.push(socket);
  let received = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => (received += chunk));
  socket.on("error", () => {});
  const closed = new Promise<"closed" | "still open">((resolve) => {
    socket.on("close", () => resolve("closed"));
    setTimeout(() => resolve("still open"), DEADLINE_MS).unref();
  });
  return { socket, received: () => received, closed };
}

describe("startServer limits", () => {
  it("a client that has not sent its whole request within requestTimeoutMs gets 408 and its connection is closed", async () => {
    const { port } = await serve({ limits: { requestTimeoutMs: 300 } });
    const trickle = open(port, "GET /memory/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n"); // headers never finished
    const silent = open(port, "");
    expect(await trickle.closed).toBe("closed");
    expect(trickle.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(await silent.closed).toBe("closed");
  });

  it("the request timeout does not cut a live stream: its request has arrived, the answer is still streaming", async () => {
    const live = liveSessions();
    live.add("running", { getMessages: async () => [{ role: "user", content: "hi" }] });
    const { port } = await serve({ limits: { requestTimeoutMs: 100 }, inspector: { sources: [live], pollMs: 50 } });
    const stream = open(port, "GET /inspector/api/live?source=live&id=running HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    const outcome = await Promise.race([stream.closed, new Promise((resolve) => setTimeout(() => resolve("still open"), 1_500))]);
    expect(outcome).toBe("still open");
    expect(stream.received()).toMatch(/^HTTP\/1\.1 200 [\s\S]*text\/event-stream[\s\S]*: live/);
  });

  it("caps open connections at maxConnections: one more is dropped unanswered, and served again once one closes", async () => {
    const { port } = await serve({ limits: { maxConnections: 2 } });
    const first = open(port, "");
    const second = open(port, "");
    await Promise.all([first, second].map(({ socket }) => new Promise((resolve) => (socket.readyState === "open" ? resolve(undefined) : socket.once("connect", resolve)))));
    // The server counts a connection when it accepts it: wait until it holds both.
    await until(async () => (await connectionCount(running[0]!)) === 2);
    const third = open(port, "GET /memory/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    expect(await third.closed).toBe("closed");
    expect(third.received()).toBe("");
    first.socket.destroy();
    await until(async () => (await connectionCount(running[0]!)) === 1);
    const fourth = open(port, "GET /memory/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    expect(await fourth.closed).toBe("closed");
    expect(fourth.received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("closes a connection silent both ways for idleTimeoutMs (here a handler that never answers)", async () => {
    const hanging = { kind: "hanging", listSessions: () => new Promise<string[]>(() => {}) } as unknown as Memory;
    const { port } = await serve({ memory: hanging, limits: { idleTimeoutMs: 300 } });
    const waiting = open(port, "GET /memory/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    expect(await waiting.closed).toBe("closed");
    expect(waiting.received()).toBe("");
  });

  it("closes an idle keep-alive connection keepAliveTimeoutMs after its last answer", async () => {
    const { port } = await serve({ limits: { keepAliveTimeoutMs: 200 } });
    const kept = open(port, "GET /memory/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    expect(await kept.closed).toBe("closed");
    expect(kept.received()).toMatch(/^HTTP\/1\.1 200 [\s\S]*"sessions":\[\]/);
  });

  it("answers 431 to a header block larger than maxHeaderBytes", async () => {
    const { port } = await serve({ limits: { maxHeaderBytes: 1_024 } });
    const big = open(port, `GET /memory/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${"x".repeat(2_048)}\r\nConnection: close\r\n\r\n`);
    expect(await big.closed).toBe("closed");
    expect(big.received()).toMatch(/^HTTP\/1\.1 431 /);
    const small = open(port, "GET /memory/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    await small.closed;
    expect(small.received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("has a default for every limit, and the server runs under them", async () => {
    expect(SERVER_LIMITS_DEFAULT).toEqual({ requestTimeoutMs: 30_000, idleTimeoutMs: 120_000, keepAliveTimeoutMs: 5_000, maxConnections: 512, bodyLimitBytes: 16_384, maxHeaderBytes: 16_384 });
    const { server } = await serve();
    expect(server.fastify.server.requestTimeout).toBe(30_000);
    expect(server.fastify.server.maxConnections).toBe(512);
    expect(server.fastify.initialConfig.bodyLimit).toBe(16_384);
  });

  it("refuses a limit that is not a whole number ≥ 1, or an unknown one, with INVALID_ARGUMENT naming it", async () => {
    for (const [limits, path] of [
      [{ requestTimeoutMs: 0 }, "startServer.limits.requestTimeoutMs"],
      [{ maxConnections: 1.5 }, "startServer.limits.maxConnections"],
      [{ idleTimeoutMs: "60s" }, "startServer.limits.idleTimeoutMs"],
      [{ keepAliveTimeoutMs: 2 ** 31 }, "startServer.limits.keepAliveTimeoutMs"],
      [{ requestTimeout: 1000 }, "startServer.limits.requestTimeout"],
      [[], "startServer.limits"],
    ] as const) {
      await expect(startServer({ memory: fixedMemory(), port: 0, limits: limits as never }), path).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: { path } });
    }
  });
});

// ---- helpers ----

function connectionCount(server: RunningServer): Promise<number> {
  return new Promise((resolve, reject) => server.fastify.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + DEADLINE_MS;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error("condition not met before the deadline");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
