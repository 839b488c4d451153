/**
 * The memory API mounted into someone else's fastify app, as a user would: their app, their own
 * routes, `app.register(memoryRoutes, { prefix: "/api/memory", memory, token })`, real requests
 * over a socket on 127.0.0.1. The token guard is a hook of the plugin's own context: it guards the
 * routes under the prefix and nothing of the host's.
 */
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { memoryRoutes, registerHostGuard } from "@amplifier-ts/server";
import { fixedMemory } from "./fixed-memory.js";

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** The user's app: a route of its own, then the memory API under /api/memory with a token. */
async function hostApp(): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify();
  apps.push(app);
  app.get("/health", async () => ({ ok: true }));
  app.get<{ Querystring: { n: number } }>("/count", { schema: { querystring: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } } }, async (request) => ({ n: request.query.n }));
  await app.register(memoryRoutes, { prefix: "/api/memory", memory: fixedMemory({ s1: ["hello", "again"], s2: ["other"] }), token: "s3cret", agentName: "their-agent" });
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  return { app, url };
}

const bearer = { headers: { authorization: "Bearer s3cret" } };

describe("memoryRoutes in a host app", () => {
  it("serves the memory API under the host's prefix, with the token", async () => {
    const { url } = await hostApp();
    expect(await (await fetch(`${url}/api/memory/sessions`, bearer)).json()).toEqual({ agent: "their-agent", sessions: ["s1", "s2"], total: 2 });
    const events = (await (await fetch(`${url}/api/memory/events?session_id=s1&limit=1`, bearer)).json()) as { events: { content: string; session_id: string }[]; total: number };
    expect(events).toMatchObject({ agent: "their-agent", total: 1, events: [{ content: "again", session_id: "s1", event_type: "user_message" }] });
    const all = (await (await fetch(`${url}/api/memory/events`, bearer)).json()) as { events: { content: string }[] };
    expect(all.events.map((e) => e.content)).toEqual(["hello", "again", "other"]);
    // Only where it was mounted: not at the default /memory.
    expect((await fetch(`${url}/memory/sessions`, bearer)).status).toBe(404);
  });

  it("guards the routes under the prefix only: without the token they are 401, the host's routes and 404s answer as before", async () => {
    const { url } = await hostApp();
    for (const [path, authorization] of [["/api/memory/sessions", undefined], ["/api/memory/events", undefined], ["/api/memory/sessions", "Bearer wrong"], ["/api/memory/sessions", "s3cret"]] as const) {
      const denied = await fetch(`${url}${path}`, authorization === undefined ? {} : { headers: { authorization } });
      expect(denied.status, `${path} ${authorization}`).toBe(401);
      expect(denied.headers.get("www-authenticate")).toBe("Bearer");
      expect(await denied.json()).toMatchObject({ code: "UNAUTHORIZED" });
    }
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ ok: true });
    expect(await (await fetch(`${url}/count?n=3`)).json()).toEqual({ n: 3 });
    // The host's 404 handler, not the plugin's guard: the token is the prefix's business only.
    expect((await fetch(`${url}/nothing`)).status).toBe(404);
  });

  it("answers its own errors in its own shape (400 INVALID_PARAMETER naming the parameter); the host's error handler stays the host's", async () => {
    const { url } = await hostApp();
    const bad = await fetch(`${url}/api/memory/events?limit=0`, bearer);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "INVALID_PARAMETER", parameter: "limit", message: expect.stringContaining("limit") });
    const hostBad = await fetch(`${url}/count`);
    expect(hostBad.status).toBe(400);
    expect(await hostBad.json()).toMatchObject({ code: "FST_ERR_VALIDATION" }); // fastify's own answer, untouched
  });

  it("mounted twice, each mount keeps its own guard: one with a token, one without", async () => {
    const app = Fastify();
    apps.push(app);
    await app.register(memoryRoutes, { prefix: "/private", memory: fixedMemory({ p: [] }), token: "one" });
    await app.register(memoryRoutes, { prefix: "/public", memory: () => fixedMemory({ q: [] }) });
    expect((await app.inject("/private/sessions")).statusCode).toBe(401);
    expect((await app.inject({ url: "/private/sessions", headers: { authorization: "Bearer one" } })).json()).toMatchObject({ sessions: ["p"] });
    expect((await app.inject("/public/sessions")).json()).toMatchObject({ sessions: ["q"] });
  });

  it("a memory function that gives none answers 503 NO_MEMORY", async () => {
    const app = Fastify();
    apps.push(app);
    await app.register(memoryRoutes, { prefix: "/memory", memory: () => undefined });
    const answer = await app.inject("/memory/sessions");
    expect(answer.statusCode).toBe(503);
    expect(answer.json()).toMatchObject({ code: "NO_MEMORY" });
  });

  it("checks its options when it registers: a memory without the Memory methods, an empty token", async () => {
    for (const [options, path] of [
      [{ memory: { listSessions: async () => [] } }, "memoryRoutes.memory"],
      [{ memory: undefined }, "memoryRoutes.memory"],
      [{ memory: fixedMemory(), token: "" }, "memoryRoutes.token"],
    ] as const) {
      const app = Fastify();
      apps.push(app);
      // @ts-expect-error -- bad options on purpose
      app.register(memoryRoutes, { prefix: "/m", ...options });
      await expect(app.ready(), path).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path }) });
    }
  });

  it("under the host's loopback guard (registerHostGuard on its root), a foreign Host is refused before the plugin's token is looked at", async () => {
    const app = Fastify();
    apps.push(app);
    registerHostGuard(app, "127.0.0.1");
    app.get("/health", async () => ({ ok: true }));
    await app.register(memoryRoutes, { prefix: "/api/memory", memory: fixedMemory({ s1: [] }), token: "s3cret" });
    for (const url of ["/api/memory/sessions", "/health", "/nothing"]) {
      const refused = await app.inject({ url, headers: { host: "rebind.attacker.example", authorization: "Bearer s3cret" } });
      expect(refused.statusCode, url).toBe(403);
      expect(refused.json(), url).toMatchObject({ code: "FORBIDDEN_HOST" });
    }
    expect((await app.inject({ url: "/api/memory/sessions", headers: { host: "localhost:8080", authorization: "Bearer s3cret" } })).json()).toMatchObject({ sessions: ["s1"] });
  });
});
