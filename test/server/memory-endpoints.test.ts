import { afterEach, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server.js";
import { Coordinator } from "../../core/index.js";
import { LocalMemory, mount as mountLocal } from "../../modules/memory-local/index.js";

/** The endpoints over real HTTP (fetch against a listening server on 127.0.0.1, a free port). */
const running: RunningServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

async function serve(memory: LocalMemory, options: { token?: string; agentName?: string } = {}): Promise<RunningServer> {
  const server = await startServer({ memory, port: 0, agentName: options.agentName ?? "my-agent", ...(options.token ? { token: options.token } : {}) });
  running.push(server);
  return server;
}

async function seeded(): Promise<LocalMemory> {
  const memory = new LocalMemory();
  const a = await memory.createSession({ appName: "agent", userId: "u", sessionId: "session_abc123" });
  const b = await memory.createSession({ appName: "agent", userId: "u", sessionId: "session_def456" });
  // Distinct times (1 ms apart), so "newest" is one order across both sessions.
  const base = Date.now() - 1_000;
  for (let i = 0; i < 150; i++) await memory.addEvent(i % 2 ? a : b, { ...memory.createEvent("user_message", `m${i}`), timestamp: new Date(base + i) });
  return memory;
}

describe("GET /memory/events", () => {
  it("answers { agent, events, total }: the newest 100 by default, newest last, in the seed's to_dict shape plus session_id", async () => {
    const server = await serve(await seeded());
    const response = await fetch(`${server.url}/memory/events`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { agent: string; events: Record<string, unknown>[]; total: number };
    expect(body.agent).toBe("my-agent");
    expect(body.total).toBe(100);
    expect(body.events.map((e) => e.content)).toEqual(Array.from({ length: 100 }, (_, i) => `m${i + 50}`));
    expect(Object.keys(body.events[0]!).sort()).toEqual(["content", "event_id", "event_type", "metadata", "session_id", "timestamp"]);
    expect(body.events.at(-1)).toMatchObject({ event_type: "user_message", session_id: "session_abc123" });
  });

  it("limit and session_id filter, alone and combined", async () => {
    const server = await serve(await seeded());
    const get = async (query: string) => (await (await fetch(`${server.url}/memory/events?${query}`)).json()) as { events: { content: string; session_id: string }[]; total: number };
    expect((await get("limit=50")).total).toBe(50);
    const one = await get("session_id=session_abc123");
    expect(one.total).toBe(75);
    expect(new Set(one.events.map((e) => e.session_id))).toEqual(new Set(["session_abc123"]));
    const both = await get("session_id=session_abc123&limit=20");
    expect(both.events.map((e) => e.content)).toEqual(one.events.slice(-20).map((e) => e.content));
  });

  it("an unknown session answers 200 with no events (as the seed)", async () => {
    const server = await serve(await seeded());
    const response = await fetch(`${server.url}/memory/events?session_id=nobody`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ agent: "my-agent", events: [], total: 0 });
  });

  it("bad parameters are 400 with a JSON error naming the parameter", async () => {
    const server = await serve(await seeded());
    for (const [query, parameter] of [["limit=0", "limit"], ["limit=1001", "limit"], ["limit=ten", "limit"], ["session_id=../x", "session_id"], ["sessionId=x", "sessionId"]] as const) {
      const response = await fetch(`${server.url}/memory/events?${query}`);
      expect(response.status, query).toBe(400);
      const body = (await response.json()) as { code: string; parameter: string; message: string };
      expect(body.code).toBe("INVALID_PARAMETER");
      expect(body.parameter, query).toBe(parameter);
      expect(body.message).toContain(parameter);
    }
  });
});

describe("GET /memory/sessions", () => {
  it("answers { agent, sessions, total }, oldest first", async () => {
    const server = await serve(await seeded());
    expect(await (await fetch(`${server.url}/memory/sessions`)).json()).toEqual({ agent: "my-agent", sessions: ["session_abc123", "session_def456"], total: 2 });
  });
});

describe("server", () => {
  it("binds 127.0.0.1 unless told otherwise", async () => {
    const server = await serve(new LocalMemory());
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((server.fastify.server.address() as { address: string }).address).toBe("127.0.0.1");
  });

  it("with a token, requests without the right bearer token are 401; /openapi.json stays open", async () => {
    const server = await serve(await seeded(), { token: "s3cret" });
    expect((await fetch(`${server.url}/memory/sessions`)).status).toBe(401);
    expect((await fetch(`${server.url}/memory/sessions`, { headers: { authorization: "Bearer wrong!" } })).status).toBe(401);
    expect((await fetch(`${server.url}/memory/sessions`, { headers: { authorization: "Bearer s3cret" } })).status).toBe(200);
    expect((await fetch(`${server.url}/openapi.json`)).status).toBe(200);
  });

  it("serves an OpenAPI 3.1 document describing both endpoints and their parameters", async () => {
    const server = await serve(new LocalMemory(), { token: "t" });
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { openapi: string; paths: Record<string, { get: { parameters?: { name: string }[] } }>; security?: unknown };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(["/memory/events", "/memory/sessions"]);
    expect(doc.paths["/memory/events"]!.get.parameters!.map((p) => p.name)).toEqual(["limit", "session_id"]);
    expect(doc.security).toEqual([{ bearer: [] }]);
  });

  it("finds the memory through the coordinator's capability; without one it answers 503", async () => {
    const coordinator = new Coordinator();
    const server = await startServer({ coordinator, port: 0 });
    running.push(server);
    expect((await fetch(`${server.url}/memory/sessions`)).status).toBe(503);
    const memory = await mountLocal(coordinator, {});
    await memory.createSession({ appName: "a", userId: "u", sessionId: "s1" });
    expect(await (await fetch(`${server.url}/memory/sessions`)).json()).toMatchObject({ sessions: ["s1"], total: 1 });
    await coordinator.cleanup();
  });

  it("refuses a bad port or an empty token with INVALID_ARGUMENT", async () => {
    await expect(startServer({ memory: new LocalMemory(), port: 70_000 })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: { path: "startServer.port" } });
    await expect(startServer({ memory: new LocalMemory(), token: "" })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: { path: "startServer.token" } });
  });

  it("without an Inspector, GET / names the routes it serves (what fastify registered), not a 404", async () => {
    const server = await serve(new LocalMemory());
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { agent: string; inspector: boolean; routes: { method: string; path: string; summary?: string }[]; openapi: string };
    expect(body).toMatchObject({ agent: "my-agent", inspector: false, openapi: "/openapi.json" });
    expect(body.routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(["GET /", "GET /memory/events", "GET /memory/sessions", "GET /openapi.json"]);
    expect(body.routes.find((r) => r.path === "/memory/events")?.summary).toBe("List events, newest last");
    // With a token, the index is guarded like the routes it names.
    const guarded = await serve(new LocalMemory(), { token: "t" });
    expect((await fetch(`${guarded.url}/`)).status).toBe(401);
    expect((await fetch(`${guarded.url}/`, { headers: { authorization: "Bearer t" } })).status).toBe(200);
  });

  it("unknown paths are a JSON 404", async () => {
    const server = await serve(new LocalMemory());
    const response = await fetch(`${server.url}/memory/nothing`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "NOT_FOUND" });
  });
});
