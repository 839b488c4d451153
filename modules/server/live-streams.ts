/**
 * GET /inspector/api/live: a session's changes as server-sent events, bounded.
 *
 * | request | answer |
 * |---|---|
 * | a session a source holds, under the limits | 200 text/event-stream: `: live`, then `event: changed` `data: {"messages": <count>}` when its count changes, `: ping` every 15 s |
 * | a session no source holds | 404 JSON, code INSPECTOR/UNKNOWN_SESSION (no stream is opened) |
 * | `max` streams open on the server, or `perClient` from this client's address | 503 JSON, code INSPECTOR/TOO_MANY_STREAMS, `retry-after` — before anything is streamed |
 *
 * Every stream on one session shares one follower (the Inspector's session-followers.ts): a tick
 * costs one look at the session's count, however many pages follow it. A slot is taken before the
 * session is looked up, so a burst of requests cannot pass the limit while the lookups run.
 */
import type { FastifyInstance } from "fastify";
import { createError } from "@amplifier-ts/contracts";
import { inspectorErrors, type Inspector, type InspectorOptions } from "@amplifier-ts/inspector";

const PING_MS = 15_000;
const RETRY_AFTER_S = 5;
export const DEFAULT_LIVE_STREAMS = { max: 64, perClient: 8 } as const;

/** The querystring of every Inspector route on one session: ?source=&id=. */
export const sessionQuery = {
  type: "object",
  properties: { source: { type: "string", minLength: 1 }, id: { type: "string", minLength: 1 } },
  required: ["source", "id"],
  additionalProperties: false,
} as const;

/** Registers the route as `/live` of `app` (the Inspector's /inspector/api context); returns what ends every open stream (the server's preClose). */
export function registerLiveStreams(app: FastifyInstance, inspector: Inspector, limits: InspectorOptions["liveStreams"], headers: Record<string, string>): () => void {
  const { max, perClient } = checkLimits(limits);
  const streams = new Set<() => void>();
  const byClient = new Map<string, number>();
  let open = 0;
  const release = (client: string) => {
    open--;
    const left = (byClient.get(client) ?? 1) - 1;
    if (left === 0) byClient.delete(client);
    else byClient.set(client, left);
  };

  app.get<{ Querystring: { source: string; id: string } }>("/live", { schema: { querystring: sessionQuery } }, async (request, reply) => {
    const client = request.socket.remoteAddress ?? "unknown";
    const mine = byClient.get(client) ?? 0;
    if (open >= max || mine >= perClient) {
      const which = open >= max ? `${max} live streams are open on this server` : `${perClient} live streams are open from ${client}`;
      const error = inspectorErrors.create("TOO_MANY_STREAMS", which, { module: "inspector", expected: `at most ${max} streams in all and ${perClient} per client`, hint: "close a page that follows a session, or raise inspector.liveStreams" });
      return reply.code(503).headers({ ...headers, "retry-after": String(RETRY_AFTER_S) }).send({ statusCode: 503, error: "Service Unavailable", code: error.code, message: error.message });
    }
    open++;
    byClient.set(client, mine + 1);
    let held: boolean;
    try {
      held = await inspector.has(request.query.source, request.query.id);
    } catch (lookup) {
      release(client);
      throw lookup;
    }
    if (!held || request.raw.destroyed) {
      release(client);
      const error = inspectorErrors.create("UNKNOWN_SESSION", `${request.query.source}/${request.query.id}`, { module: "inspector", given: { source: request.query.source, sessionId: request.query.id } });
      return reply.code(404).headers(headers).send({ statusCode: 404, error: "Not Found", code: error.code, message: error.message });
    }

    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { ...headers, "content-type": "text/event-stream; charset=utf-8", connection: "keep-alive" });
    raw.write(": live\n\n");
    const stop = inspector.follow(request.query.source, request.query.id, (messages) => raw.write(`event: changed\ndata: ${JSON.stringify({ messages })}\n\n`));
    const ping = setInterval(() => raw.write(": ping\n\n"), PING_MS);
    ping.unref();
    const end = () => {
      if (!streams.delete(end)) return;
      clearInterval(ping);
      stop();
      release(client);
      raw.end();
    };
    streams.add(end);
    // The client may have gone while the stream was set up: its close event is then past.
    request.raw.on("close", end);
    raw.on("close", end);
    raw.on("error", end);
    if (request.raw.socket?.destroyed === true) end();
  });

  return () => {
    for (const end of [...streams]) end();
  };
}

function checkLimits(limits: InspectorOptions["liveStreams"]): { max: number; perClient: number } {
  const max = limits?.max ?? DEFAULT_LIVE_STREAMS.max;
  const perClient = limits?.perClient ?? DEFAULT_LIVE_STREAMS.perClient;
  for (const [name, value] of [["max", max], ["perClient", perClient]] as const) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw createError("INVALID_ARGUMENT", `inspector.liveStreams.${name} must be a whole number of at least 1`, { module: "server", path: `inspector.liveStreams.${name}`, expected: "an integer ≥ 1", given: value });
    }
  }
  return { max, perClient };
}
