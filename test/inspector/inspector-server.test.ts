import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { historyStoreSource, INSPECTOR_CSP, liveSessions, type InspectorSession, type InspectorSessionSummary, type SessionAnalysisResult, type SessionAnalyzer } from "@amplifier-ts/inspector";
import { LocalMemory } from "@amplifier-ts/module-memory-local";
import { MemoryStore } from "@amplifier-ts/stores";
import { startServer, type RunningServer, type StartServerOptions } from "@amplifier-ts/server";
import { readEventStream } from "../support/event-stream.js";

/** The Inspector's routes over real HTTP: page, assets, data, token, live stream. */
const running: RunningServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

const conversation: Message[] = [
  { role: "user", content: "hi", metadata: { id: "u1", timestamp: "2026-11-02T09:00:00.000Z" } },
  { role: "assistant", content: "hello", metadata: { id: "a1", timestamp: "2026-11-02T09:00:05.000Z" } },
];

/** A fixed analysis (the real one, analyzeSession, runs in the browser tests): one turn per assistant message. */
const analyze: SessionAnalyzer = async (messages) => ({
  analysis: {
    module: "test",
    model: "gpt-4o",
    turns: messages.flatMap((m, i) => (m.role === "assistant" ? [{ turn: 1, messageIndex: i, historyMessages: i, historyTokens: 10, windowMessages: i, windowTokens: 10, budget: 100, prefixKept: 1, instructionTokens: 0, historyKeptTokens: 10, toolTokens: 0 }] : [])),
  },
  tokens: messages.map(() => 5),
});

async function serve(extra: Partial<StartServerOptions> = {}) {
  const store = new MemoryStore();
  await store.appendMany("chat", conversation);
  const memory = new LocalMemory();
  await memory.createSession({ appName: "agent", userId: "u", sessionId: "chat" });
  await memory.addEvent("chat", { ...memory.createEvent("user_message", "hi"), timestamp: new Date("2026-11-02T09:00:01.000Z") });
  await memory.createSession({ appName: "agent", userId: "u", sessionId: "only-in-memory" });
  const server = await startServer({ memory, port: 0, inspector: { sources: [historyStoreSource(store, "store")], analyze, pollMs: 50 }, ...extra });
  running.push(server);
  return { server, store };
}

describe("the Inspector's routes", () => {
  it("GET / is the page: HTML with a Content-Security-Policy that allows no inline script, its code served beside it", async () => {
    const { server } = await serve();
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toBe(INSPECTOR_CSP);
    expect(INSPECTOR_CSP).toContain("script-src 'self'");
    expect(INSPECTOR_CSP).not.toContain("unsafe-inline");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await page.text();
    expect(html).toMatch(/<script defer src="\/inspector\/assets\/inspector.js"><\/script>/);
    expect(html).not.toMatch(/<script>|<style>|style="/);
    const js = await fetch(`${server.url}/inspector/assets/inspector.js`);
    expect(js.headers.get("content-type")).toContain("text/javascript");
    expect((await js.text()).length).toBeGreaterThan(10_000);
    expect((await fetch(`${server.url}/inspector/assets/inspector.css`)).headers.get("content-type")).toContain("text/css");
  });

  it("lists the sessions of every source with message and memory-event counts; sessions only the memory knows under 'memory'", async () => {
    const { server } = await serve();
    const { sessions } = (await (await fetch(`${server.url}/inspector/api/sessions`)).json()) as { sessions: InspectorSessionSummary[] };
    expect(sessions).toEqual([
      // The newer of the store's last write (now) and the newest event (2026-11-02T09:00:01Z).
      { source: "store", sessionId: "chat", messages: 2, events: 1, live: false, lastActivity: expect.any(String) },
      { source: "memory", sessionId: "only-in-memory", messages: 0, events: 0, live: false },
    ]);
    expect(Date.parse(sessions[0]!.lastActivity!)).toBeGreaterThan(Date.parse("2026-11-02T09:00:01.000Z"));
  });

  it("answers a session with its messages, memory events and analysis; 404 with a code for an unknown one", async () => {
    const { server } = await serve();
    const session = (await (await fetch(`${server.url}/inspector/api/session?source=store&id=chat`)).json()) as InspectorSession;
    expect(session.messages.map((m) => [m.role, m.text, m.tokens])).toEqual([["user", "hi", 5], ["assistant", "hello", 5]]);
    expect(session.events).toMatchObject([{ event_type: "user_message", content: "hi" }]);
    expect(session.analysis?.turns).toHaveLength(1);
    const missing = await fetch(`${server.url}/inspector/api/session?source=store&id=nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: "INSPECTOR/UNKNOWN_SESSION" });
    const bad = await fetch(`${server.url}/inspector/api/session?source=store`);
    expect(bad.status).toBe(400);
  });

  it("answers the messages at once with analysis=false, and the analysis on its own route", async () => {
    const { server } = await serve();
    const fast = (await (await fetch(`${server.url}/inspector/api/session?source=store&id=chat&analysis=false`)).json()) as InspectorSession;
    expect(fast.analysis).toBeUndefined();
    expect(fast.analysisPending).toBe(true);
    expect(fast.messages.map((m) => m.tokens)).toEqual([undefined, undefined]);
    const later = (await (await fetch(`${server.url}/inspector/api/analysis?source=store&id=chat`)).json()) as SessionAnalysisResult;
    expect(later.analysis?.turns).toHaveLength(1);
    expect(later.tokens).toEqual([5, 5]);
    expect((await fetch(`${server.url}/inspector/api/analysis?source=store&id=nope`)).status).toBe(404);
  });

  it("says why a session has no analysis when the server has no analyzer", async () => {
    const store = new MemoryStore();
    await store.appendMany("chat", conversation);
    const server = await startServer({ port: 0, inspector: { sources: [historyStoreSource(store, "store")] } });
    running.push(server);
    const session = (await (await fetch(`${server.url}/inspector/api/session?source=store&id=chat`)).json()) as InspectorSession;
    expect(session.analysis).toBeUndefined();
    expect(session.analysisError).toBe("this server was started without an analyzer");
    expect((await fetch(`${server.url}/memory/sessions`)).status).toBe(503);
  });

  it("with a token: nothing opens without it — the page is a 401 page saying to open /?token=… (no app, no data), its code a 401, every data route and the live stream a JSON 401", async () => {
    const { server } = await serve({ token: "t0ken" });
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(401);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("set-cookie")).toBeNull();
    const html = await page.text();
    expect(html).toContain("/?token=&lt;token&gt;");
    expect(html).not.toMatch(/<script|inspector\.js|inspector\.css|chat/);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    for (const path of ["/inspector/assets/inspector.js", "/inspector/assets/inspector.css"]) {
      const asset = await fetch(`${server.url}${path}`);
      expect(asset.status, path).toBe(401);
      expect(await asset.text(), path).toBe("401: open /?token=<token> first\n");
    }
    for (const path of ["/inspector/api/sessions", "/inspector/api/session?source=store&id=chat", "/inspector/api/analysis?source=store&id=chat", "/inspector/api/live?source=store&id=chat", "/memory/sessions"]) {
      const denied = await fetch(`${server.url}${path}`);
      expect(denied.status, path).toBe(401);
      expect(denied.headers.get("www-authenticate"), path).toBe("Bearer");
      expect(await denied.json(), path).toMatchObject({ code: "UNAUTHORIZED" });
    }
    // A query string does not open the page; /openapi.json stays open.
    expect((await fetch(`${server.url}/?x=/inspector/api/sessions`)).status).toBe(401);
    expect((await fetch(`${server.url}/openapi.json`)).status).toBe(200);
  });

  it("GET /?token=<right token> sets an HttpOnly, SameSite=Strict, Path=/ cookie (not the token) and answers 303 to / without the token", async () => {
    const { server } = await serve({ token: "t0ken" });
    const login = await fetch(`${server.url}/?token=t0ken`, { redirect: "manual" });
    expect(login.status).toBe(303);
    expect(login.headers.get("location")).toBe("/");
    expect(login.headers.get("cache-control")).toBe("no-store");
    const port = new URL(server.url).port;
    const cookie = parseSetCookie(login.headers.get("set-cookie"));
    expect(cookie.name).toBe(`amplifier_inspector_${port}`);
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/); // an HMAC-SHA256, base64url
    expect(cookie.value).not.toContain("t0ken");
    expect(cookie.attributes).toEqual(["Path=/", "HttpOnly", "SameSite=Strict"]); // plain http: no Secure
    // A server started with the same token draws its own key: its cookie differs.
    const other = await serve({ token: "t0ken" });
    const otherCookie = parseSetCookie((await fetch(`${other.server.url}/?token=t0ken`, { redirect: "manual" })).headers.get("set-cookie"));
    expect(otherCookie.value).not.toBe(cookie.value);
  });

  it("marks the cookie Secure when the request came over https (a proxy's X-Forwarded-Proto)", async () => {
    const { server } = await serve({ token: "t0ken" });
    const login = await fetch(`${server.url}/?token=t0ken`, { redirect: "manual", headers: { "x-forwarded-proto": "https" } });
    expect(parseSetCookie(login.headers.get("set-cookie")).attributes).toEqual(["Path=/", "HttpOnly", "SameSite=Strict", "Secure"]);
  });

  it("with the cookie: the page, its code, every data route, the live stream and /memory answer; the bearer header still works everywhere", async () => {
    const { server } = await serve({ token: "t0ken" });
    const login = await fetch(`${server.url}/?token=t0ken`, { redirect: "manual" });
    const set = parseSetCookie(login.headers.get("set-cookie"));
    const withCookie = { headers: { cookie: `other=1; ${set.name}=${set.value}; more=2` } };
    const page = await fetch(`${server.url}/`, withCookie);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toBe(INSPECTOR_CSP);
    expect(await page.text()).toContain("/inspector/assets/inspector.js");
    expect((await fetch(`${server.url}/inspector/assets/inspector.js`, withCookie)).status).toBe(200);
    expect((await fetch(`${server.url}/inspector/assets/inspector.css`, withCookie)).status).toBe(200);
    const { sessions } = (await (await fetch(`${server.url}/inspector/api/sessions`, withCookie)).json()) as { sessions: InspectorSessionSummary[] };
    expect(sessions.map((s) => s.sessionId)).toEqual(["chat", "only-in-memory"]);
    const session = (await (await fetch(`${server.url}/inspector/api/session?source=store&id=chat&analysis=false`, withCookie)).json()) as InspectorSession;
    expect(session.messages).toHaveLength(2);
    expect((await fetch(`${server.url}/inspector/api/analysis?source=store&id=chat`, withCookie)).status).toBe(200);
    const liveStream = await fetch(`${server.url}/inspector/api/live?source=store&id=chat`, withCookie);
    expect(liveStream.status).toBe(200);
    expect(liveStream.headers.get("content-type")).toContain("text/event-stream");
    const reader = liveStream.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value).toContain(": live");
    await reader.cancel();
    expect(await (await fetch(`${server.url}/memory/sessions`, withCookie)).json()).toMatchObject({ sessions: ["chat", "only-in-memory"] });

    const bearer = { headers: { authorization: "Bearer t0ken" } };
    for (const path of ["/", "/inspector/assets/inspector.js", "/inspector/api/sessions", "/memory/sessions"]) expect((await fetch(`${server.url}${path}`, bearer)).status, path).toBe(200);
    // A cookie of another name (another port's server) or another value does not open anything.
    // (The altered value changes its last character to one it is not: a fixed 'A' equals the real value once in 64 runs.)
    const altered = `${set.value.slice(0, -1)}${set.value.endsWith("A") ? "B" : "A"}`;
    for (const cookie of [`amplifier_inspector_1=${set.value}`, `${set.name}=${altered}`, `${set.name}=`, `${set.name}=t0ken`]) {
      expect((await fetch(`${server.url}/inspector/api/sessions`, { headers: { cookie } })).status, cookie).toBe(401);
      expect((await fetch(`${server.url}/`, { headers: { cookie } })).status, cookie).toBe(401);
    }
  });

  it("a wrong token — shorter, longer, same length, empty, twice, or as a bearer header — is a 401 and sets no cookie", async () => {
    const { server } = await serve({ token: "t0ken" });
    for (const query of ["token=t0ke", "token=t0ken!", "token=t0keN", "token=", "token=t0ken&token=t0ken", "token=%00t0ken"]) {
      const refused = await fetch(`${server.url}/?${query}`, { redirect: "manual" });
      expect(refused.status, query).toBe(401);
      expect(refused.headers.get("set-cookie"), query).toBeNull();
      expect(await refused.text(), query).toContain("That token is not this server's.");
    }
    for (const authorization of ["Bearer t0ke", "Bearer  t0ken", "Bearer t0ken!", "bearer t0ken", "t0ken", "Bearer t0keN", ""]) {
      expect((await fetch(`${server.url}/inspector/api/sessions`, { headers: { authorization } })).status, authorization).toBe(401);
      expect((await fetch(`${server.url}/memory/sessions`, { headers: { authorization } })).status, authorization).toBe(401);
    }
  });

  it("without a token: the page opens, /?token=… is just the page, and no cookie is ever set", async () => {
    const { server } = await serve();
    for (const path of ["/", "/?token=anything"]) {
      const page = await fetch(`${server.url}${path}`, { redirect: "manual" });
      expect(page.status, path).toBe(200);
      expect(page.headers.get("set-cookie"), path).toBeNull();
    }
    expect((await fetch(`${server.url}/inspector/api/sessions`)).status).toBe(200);
  });

  it("on a loopback address, answers only requests for a loopback host name (no DNS rebinding)", async () => {
    const { server } = await serve();
    const port = new URL(server.url).port;
    const status = (host: string, path: string) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest({ host: "127.0.0.1", port, path, headers: { host } }, (response) => {
          response.resume();
          resolve(response.statusCode!);
        });
        request.on("error", reject);
        request.end();
      });
    expect(await status(`attacker.example:${port}`, "/inspector/api/sessions")).toBe(403);
    expect(await status(`attacker.example:${port}`, "/")).toBe(403);
    expect(await status(`localhost:${port}`, "/inspector/api/sessions")).toBe(200);
    expect(await status(`127.0.0.1:${port}`, "/")).toBe(200);
    expect(await status(`[::1]:${port}`, "/inspector/api/sessions")).toBe(200);
    // The same guard covers the rest of the server (host-guard.ts; test/server/host-guard.test.ts).
    expect(await status(`attacker.example:${port}`, "/memory/sessions")).toBe(403);
    // Decided on what the router routes: an encoded path still reaches the Inspector's route, and is refused.
    expect(await status(`attacker.example:${port}`, "/%69nspector/api/session?source=store&id=chat")).toBe(403);
    expect(await status(`attacker.example:${port}`, "/inspector/%61pi/sessions")).toBe(403);
    expect(await status(`localhost:${port}`, "/%69nspector/api/session?source=store&id=chat")).toBe(200);
  });

  it("with a token on a loopback address, a login for another host name is refused (403) before the token is looked at: no cookie", async () => {
    const { server } = await serve({ token: "t0ken" });
    const port = new URL(server.url).port;
    const answer = await new Promise<{ status: number; cookie: unknown }>((resolve, reject) => {
      const request = httpRequest({ host: "127.0.0.1", port, path: "/?token=t0ken", headers: { host: `attacker.example:${port}` } }, (response) => {
        response.resume();
        resolve({ status: response.statusCode!, cookie: response.headers["set-cookie"] });
      });
      request.on("error", reject);
      request.end();
    });
    expect(answer).toEqual({ status: 403, cookie: undefined });
  });

  it("streams `event: changed` when a stored session grows, and when a live session does", async () => {
    const live = liveSessions();
    const messages = [...conversation];
    live.add("running", { getMessages: async () => messages.slice() });
    const { server, store } = await serve({ inspector: { sources: [live], analyze, pollMs: 50 } });
    const response = await fetch(`${server.url}/inspector/api/live?source=live&id=running`);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const stream = readEventStream(response);
    await stream.until(/: live/);
    await new Promise((resolve) => setTimeout(resolve, 120));
    messages.push({ role: "user", content: "more", metadata: { id: "u2" } });
    await stream.until(/event: changed\ndata: \{"messages":3\}/);
    await stream.cancel();
    expect(store.kind).toBe("memory");
  });
});

// ---- helpers ----

/** `name=value; A; B` → its name, value and attributes in order. */
function parseSetCookie(header: string | null): { name: string; value: string; attributes: string[] } {
  if (header === null) throw new Error("no Set-Cookie header");
  const [pair, ...attributes] = header.split(";").map((part) => part.trim());
  const at = pair!.indexOf("=");
  return { name: pair!.slice(0, at), value: pair!.slice(at + 1), attributes };
}
