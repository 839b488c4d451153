/**
 * GET /inspector/api/live is bounded (issue 24, item 3): a stream for an unknown session is a 404,
 * streams over the server's or a client's limit are a typed 503 before anything streams, and all
 * streams on one session share one follower that looks at the session's count — never a listing,
 * never a read of the whole session.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { type InspectorSource } from "@amplifier-ts/inspector";
import { startServer, type RunningServer, type StartServerOptions } from "@amplifier-ts/server";
import { readEventStream } from "../support/event-stream.js";

const running: RunningServer[] = [];
const aborts: AbortController[] = [];
afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort();
  for (const server of running.splice(0)) await server.close();
});

/** A source whose sessions are arrays, counting every call, with a `watch` the test fires by hand. */
function countingSource(options: { watch?: boolean } = {}) {
  const sessions = new Map<string, Message[]>([["chat", [{ role: "user", content: "hi", metadata: { id: "u1" } }]]]);
  const calls = { listSessions: 0, read: 0, count: 0, watch: 0 };
  const listeners = new Set<() => void>();
  const source: InspectorSource = {
    name: "store",
    listSessions: async () => {
      calls.listSessions++;
      return [...sessions].map(([sessionId, m]) => ({ sessionId, count: m.length }));
    },
    read: async (id) => {
      calls.read++;
      return sessions.get(id)?.slice();
    },
    count: async (id) => {
      calls.count++;
      return sessions.get(id)?.length;
    },
    ...(options.watch
      ? {
          watch: (_id: string, listener: () => void) => {
            calls.watch++;
            listeners.add(listener);
            return () => listeners.delete(listener);
          },
        }
      : {}),
  };
  const append = (id: string, message: Message) => sessions.get(id)!.push(message);
  const fire = () => {
    for (const l of [...listeners]) l();
  };
  return { source, calls, append, fire, listeners };
}

async function serve(inspector: StartServerOptions["inspector"]) {
  const server = await startServer({ port: 0, inspector });
  running.push(server);
  return server;
}

/** Opens a live stream; resolves with its status, its JSON body when it is no stream, and a reader of its events. */
async function open(server: RunningServer, id = "chat") {
  const controller = new AbortController();
  aborts.push(controller);
  const response = await fetch(`${server.url}/inspector/api/live?source=store&id=${id}`, { signal: controller.signal });
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown>, close: () => controller.abort() };
  }
  const stream = readEventStream(response);
  await stream.until(/: live/);
  return { status: response.status, headers: response.headers, body: undefined, until: stream.until, close: () => controller.abort() };
}

describe("GET /inspector/api/live", () => {
  it("answers 404 with INSPECTOR/UNKNOWN_SESSION for a session no source holds: no stream is opened", async () => {
    const { source } = countingSource();
    const server = await serve({ sources: [source], pollMs: 50 });
    const answer = await open(server, "nobody");
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ statusCode: 404, code: "INSPECTOR/UNKNOWN_SESSION" });
    const other = await fetch(`${server.url}/inspector/api/live?source=elsewhere&id=chat`);
    expect(other.status).toBe(404);
  });

  it("refuses a client's stream over its limit with a typed 503 (retry-after) before streaming; a closed stream frees its slot", async () => {
    const { source } = countingSource();
    const server = await serve({ sources: [source], pollMs: 50, liveStreams: { max: 10, perClient: 3 } });
    const streams = [await open(server), await open(server), await open(server)];
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200]);
    const refused = await open(server);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(refused.body).toMatchObject({ statusCode: 503, code: "INSPECTOR/TOO_MANY_STREAMS" });
    expect(String(refused.body!.message)).toContain("3 live streams are open from");
    streams[0]!.close();
    await expect.poll(async () => (await open(server)).status, { timeout: 10_000 }).toBe(200);
  });

  it("refuses streams over the server's limit whichever client asks", async () => {
    const { source } = countingSource();
    const server = await serve({ sources: [source], pollMs: 50, liveStreams: { max: 2, perClient: 5 } });
    expect((await open(server)).status).toBe(200);
    expect((await open(server)).status).toBe(200);
    const refused = await open(server);
    expect(refused.status).toBe(503);
    expect(String(refused.body!.message)).toContain("2 live streams are open on this server");
  });

  it("frees the slot of a client that leaves while its stream is being set up", async () => {
    const { source } = countingSource();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const count = source.count!;
    let gated = true;
    source.count = async (id) => {
      if (gated) await gate;
      return count(id);
    };
    const server = await serve({ sources: [source], pollMs: 50, liveStreams: { max: 1, perClient: 1 } });
    const leaving = new AbortController();
    const first = fetch(`${server.url}/inspector/api/live?source=store&id=chat`, { signal: leaving.signal }).catch(() => "aborted");
    // The refusal of a second stream shows the first holds the one slot while its lookup waits.
    await expect.poll(async () => (await open(server)).status).toBe(503);
    leaving.abort();
    expect(await first).toBe("aborted");
    gated = false;
    release();
    await expect.poll(async () => (await open(server)).status, { timeout: 10_000 }).toBe(200);
  });

  it("rejects limits that are not whole numbers ≥ 1 when the server starts (INVALID_ARGUMENT naming the option)", async () => {
    const { source } = countingSource();
    await expect(startServer({ port: 0, inspector: { sources: [source], liveStreams: { perClient: 0 } } })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "inspector.liveStreams.perClient" }) });
  });

  it("shares one follower among every stream on a session: one watch, one look per change, every stream told the new count", async () => {
    const { source, calls, append, fire } = countingSource({ watch: true });
    const server = await serve({ sources: [source], liveStreams: { perClient: 8 } });
    const streams = await Promise.all(Array.from({ length: 5 }, () => open(server)));
    expect(calls.watch).toBe(1);
    // The first look of the shared follower sets its baseline; let it settle.
    await expect.poll(() => calls.count).toBeGreaterThanOrEqual(1 + 5);
    const before = calls.count;
    append("chat", { role: "assistant", content: "hello", metadata: { id: "a1" } });
    fire();
    await Promise.all(streams.map((s) => s.until!(/event: changed\ndata: \{"messages":2\}/)));
    expect(calls.count - before).toBe(1);
    // Following never lists the sessions nor reads one whole.
    expect(calls.read).toBe(0);
    expect(calls.listSessions).toBe(0);
  });

  it("polls a source without watch once per tick for all its streams, looking at the count only", async () => {
    const { source, calls, append } = countingSource();
    const server = await serve({ sources: [source], pollMs: 40, liveStreams: { perClient: 8 } });
    const streams = await Promise.all(Array.from({ length: 6 }, () => open(server)));
    append("chat", { role: "assistant", content: "hello", metadata: { id: "a1" } });
    await Promise.all(streams.map((s) => s.until!(/event: changed\ndata: \{"messages":2\}/)));
    expect(calls.read).toBe(0);
    expect(calls.listSessions).toBe(0);
    // Six streams, one follower: the looks are ticks (plus the six 404 checks), not six per tick.
    const looks = calls.count;
    await new Promise((resolve) => setTimeout(resolve, 400));
    const perTick = (calls.count - looks) / (400 / 40);
    expect(perTick).toBeLessThan(2);
  });
});
