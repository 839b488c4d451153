/**
 * The DNS-rebinding guard (modules/server/host-guard.ts) over real HTTP: a loopback-bound server
 * answers only requests that name a loopback host — on every route, whatever the token, however
 * the path is spelled.
 */
import { afterEach, describe, expect, it } from "vitest";
import { historyStoreSource } from "@amplifier-ts/inspector";
import { LocalMemory } from "@amplifier-ts/module-memory-local";
import { isLoopbackHostName, startServer, type RunningServer, type StartServerOptions } from "@amplifier-ts/server";
import { MemoryStore } from "@amplifier-ts/stores";
import { rawRequest } from "./raw-http.js";

const running: RunningServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

const SECRET = "MEMORY SECRET 7f3a";
const TRANSCRIPT = "TRANSCRIPT SECRET 91c2";

/** As `amplifier-ts serve` by default: loopback, the memory, the Inspector over a store. */
async function serve(extra: Partial<StartServerOptions> = {}) {
  const memory = new LocalMemory();
  await memory.createSession({ appName: "a", userId: "u", sessionId: "m1" });
  await memory.addEvent("m1", memory.createEvent("user_message", SECRET));
  const store = new MemoryStore();
  await store.append("s1", { role: "user", content: TRANSCRIPT });
  const server = await startServer({ memory, port: 0, inspector: { sources: [historyStoreSource(store, "store")] }, ...extra });
  running.push(server);
  return { server, port: Number(new URL(server.url).port) };
}

/** Every route the server has, and a path it has not. */
const ROUTES = ["/memory/events", "/memory/sessions?x=1", "/openapi.json", "/", "/?token=t0ken", "/inspector/assets/inspector.js", "/inspector/api/sessions", "/inspector/api/session?source=store&id=s1", "/inspector/api/analysis?source=store&id=s1", "/inspector/api/live?source=store&id=s1", "/no/such/route"];

describe("the host guard of a loopback-bound server", () => {
  it("refuses a foreign Host with 403 FORBIDDEN_HOST on every route, the 404s and /openapi.json included", async () => {
    const { port } = await serve();
    for (const target of ROUTES) {
      const answer = await rawRequest(port, { target, host: `rebind.attacker.example:${port}` });
      expect(answer.status, target).toBe(403);
      expect(JSON.parse(answer.body), target).toMatchObject({ code: "FORBIDDEN_HOST" });
      expect(answer.body).not.toContain(SECRET);
    }
  });

  it("decides on the routed request: encoded paths and absolute-form targets are refused for a foreign host too", async () => {
    const { port } = await serve();
    const foreign = `rebind.attacker.example:${port}`;
    for (const target of [
      "/%69nspector/api/session?source=store&id=s1",
      "/%6Demory/events",
      "/memory/%73essions",
      "/%6Fpenapi.json",
      `http://rebind.attacker.example/inspector/api/session?source=store&id=s1`,
      `http://rebind.attacker.example:${port}/memory/events`,
    ]) {
      const answer = await rawRequest(port, { target, host: foreign });
      expect(answer.status, target).toBe(403);
      expect(answer.body, target).not.toMatch(new RegExp(`${SECRET}|${TRANSCRIPT}`));
    }
    // An absolute-form target's authority overrides Host (RFC 9112 §3.2.2): it must be loopback as well.
    expect((await rawRequest(port, { target: "http://rebind.attacker.example/memory/events", host: `127.0.0.1:${port}` })).status).toBe(403);
    // The same spellings with a loopback host are routed as usual (the guard does not break them).
    expect((await rawRequest(port, { target: "/%69nspector/api/session?source=store&id=s1", host: `127.0.0.1:${port}` })).body).toContain(TRANSCRIPT);
    expect((await rawRequest(port, { target: `http://localhost:${port}/memory/events`, host: `localhost:${port}` })).body).toContain(SECRET);
  });

  it("answers every spelling of a loopback host: 127.x, localhost, [::1], any case, with or without a port, one trailing dot", async () => {
    const { port } = await serve();
    for (const host of [`127.0.0.1:${port}`, "127.0.0.1", "127.45.6.7", `localhost:${port}`, "LOCALHOST", "LocalHost.", `localhost.:${port}`, "127.0.0.1.", `[::1]:${port}`, "[::1]", "[0:0:0:0:0:0:0:1]"]) {
      const answer = await rawRequest(port, { target: "/memory/sessions", host });
      expect(answer.status, host).toBe(200);
      expect(JSON.parse(answer.body), host).toMatchObject({ sessions: ["m1"] });
    }
  });

  it("refuses names that only look like loopback, malformed Hosts and a missing Host", async () => {
    const { port } = await serve();
    for (const host of ["localhost.attacker.example", "127.0.0.1.nip.io", "attacker.example", "127.1", "0x7f.0.0.1", "2130706433", "0.0.0.0", "[::]", "[::ffff:127.0.0.1]", "evil@localhost", "localhost:80@evil", "localhost..", "", "localhost:port"]) {
      const answer = await rawRequest(port, { target: "/memory/sessions", host });
      // Node itself answers 400 to a few malformed Hosts; neither answer holds the memory.
      expect([400, 403], JSON.stringify(host)).toContain(answer.status);
      expect(answer.body).not.toContain('"m1"');
    }
    // HTTP/1.0 may omit Host: nothing then says the request is meant for this machine.
    const bare = await rawRequest(port, { target: "/memory/sessions", host: null, version: "HTTP/1.0" });
    expect(bare.status).toBe(403);
  });

  it("with a token, a foreign Host is refused before the token is looked at: the right bearer token and the login do not help", async () => {
    const { port } = await serve({ token: "t0ken" });
    const foreign = `rebind.attacker.example:${port}`;
    for (const target of ["/memory/events", "/inspector/api/sessions", "/openapi.json", "/no/such/route"]) {
      const answer = await rawRequest(port, { target, host: foreign, headers: { authorization: "Bearer t0ken" } });
      expect(answer.status, target).toBe(403);
    }
    const login = await rawRequest(port, { target: "/?token=t0ken", host: foreign });
    expect(login.status).toBe(403);
    expect(login.head).not.toMatch(/set-cookie/i);
    expect((await rawRequest(port, { target: "/memory/sessions", host: `localhost:${port}`, headers: { authorization: "Bearer t0ken" } })).status).toBe(200);
  });

  it("without an Inspector (memory only), every route is guarded the same way", async () => {
    const memory = new LocalMemory();
    await memory.createSession({ appName: "a", userId: "u", sessionId: "m1" });
    await memory.addEvent("m1", memory.createEvent("user_message", SECRET));
    const server = await startServer({ memory, port: 0 });
    running.push(server);
    const port = Number(new URL(server.url).port);
    for (const target of ["/", "/memory/events", "/memory/sessions", "/openapi.json", "/inspector/api/sessions"]) {
      expect((await rawRequest(port, { target, host: "rebind.attacker.example" })).status, target).toBe(403);
    }
  });
});

describe("isLoopbackHostName", () => {
  it("is true for this machine's loopback names only", () => {
    for (const name of ["localhost", "LOCALHOST", "localhost.", "127.0.0.1", "127.255.255.254", "::1", "[::1]", "0:0:0:0:0:0:0:1"]) expect(isLoopbackHostName(name), name).toBe(true);
    for (const name of ["0.0.0.0", "::", "10.0.0.1", "128.0.0.1", "127.1", "localhost.example", "example.localhost.", "::ffff:127.0.0.1", "", "."]) expect(isLoopbackHostName(name), name).toBe(false);
  });
});
