import Fastify, { type FastifyError, type FastifyInstance } from "fastify";
import { createError, memoryOf, MemoryEvent, recentMemoryEvents, type CoordinatorContract, type Memory, type MemoryEventJson } from "@amplifier-ts/contracts";
import type { InspectorOptions } from "@amplifier-ts/inspector";
import { registerHostGuard } from "./host-guard.js";
import { registerInspectorRoutes } from "./inspector-routes.js";
import { eventsQuerySchema, LIMIT_DEFAULT, openApiDocument, ROUTE_SUMMARIES } from "./openapi.js";
import { registerRouteIndex } from "./route-index.js";
import { applyConnectionCap, fastifyLimitOptions, resolveServerLimits, type ServerLimits } from "./server-limits.js";
import { registerTokenGuard } from "./token-guard.js";

export interface StartServerOptions {
  /** Where the memory comes from: its "memory" capability. */
  coordinator?: Pick<CoordinatorContract, "getCapability">;
  /** A memory to serve directly (instead of the coordinator's). */
  memory?: Memory;
  /** Default 8000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1 (loopback only). "0.0.0.0" serves every interface — set a token then. */
  host?: string;
  /** The `agent` field of every answer. Default "agent". */
  agentName?: string;
  /**
   * When set, every route but /openapi.json wants `Authorization: Bearer <token>` or the session
   * cookie a browser gets by opening `/?token=<token>` (with the Inspector; token-guard.ts).
   */
  token?: string;
  /**
   * The Inspector at `/` (inspector-routes.ts): its sources (history stores, live sessions) and
   * analyzer; the memory's events join its timeline. No Inspector routes when absent.
   */
  inspector?: Omit<InspectorOptions, "memory">;
  /** Request timeout, idle timeout, connection cap, body and header sizes (server-limits.ts); each has a default. */
  limits?: Partial<ServerLimits>;
}

export interface RunningServer {
  /** http://host:port */
  url: string;
  close(): Promise<void>;
  /** The fastify instance (for inject() in tests, more routes). */
  fastify: FastifyInstance;
}

/**
 * Starts the HTTP endpoints (fastify) in this process:
 *
 * | route | answers |
 * |---|---|
 * | GET /memory/events?limit=&session_id= | `{ agent, events, total }`: events as the seed's to_dict plus `session_id`, newest last, the newest `limit` (default 100, at most 1000); without session_id over every session, in the order they were added (the memory's getRecentEvents: no full read); an unknown session → 200 with no events, as the seed |
 * | GET /memory/sessions | `{ agent, sessions, total }`: session ids, oldest first |
 * | GET /openapi.json | the OpenAPI 3.1 document (no token needed) |
 * | GET /, /inspector/… | with `inspector`: the Inspector page and its data (inspector-routes.ts) |
 * | GET / | without `inspector`: `{ agent, inspector: false, routes, openapi }`, the routes it serves (route-index.ts) |
 *
 * Guards, on every route (the 404 handler included), in this order: bound to a loopback address,
 * only a loopback Host (127.x, localhost, [::1]) is answered — 403 `FORBIDDEN_HOST` otherwise,
 * whatever the token (host-guard.ts, against DNS rebinding); with `token`, the bearer header or
 * the Inspector's cookie (token-guard.ts; /openapi.json exempt). Both decide on the routed request,
 * never on the raw URL's spelling.
 *
 * Limits (`limits`, server-limits.ts): a request must arrive within 30 s (408), a connection silent
 * both ways for 120 s is closed, an idle keep-alive one after 5 s, at most 512 connections are open
 * (more are dropped at accept), headers ≤ 16 KiB (431), bodies ≤ 16 KiB (413; no route takes one).
 * Live streams are not cut: the request timeout ends when the request has arrived.
 *
 * Errors are JSON `{ statusCode, error, code, message, parameter? }`: 400 for a bad query
 * parameter (validated by fastify against the documented schema; `parameter` names it), 401 for a
 * missing or wrong token (the Inspector's page: a small HTML page saying to open `/?token=…`), 404 for another path, 503 when no memory is mounted.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const port = options.port ?? 8000;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw createError("INVALID_ARGUMENT", undefined, { module: "server", path: "startServer.port", expected: "an integer 0-65535", given: options.port });
  if (options.token !== undefined && (typeof options.token !== "string" || options.token.length === 0)) {
    throw createError("INVALID_ARGUMENT", undefined, { module: "server", path: "startServer.token", expected: "a non-empty string", given: options.token });
  }
  if (options.coordinator === undefined && options.memory === undefined && options.inspector === undefined) {
    throw createError("INVALID_ARGUMENT", "startServer() needs a coordinator (its memory capability), a memory or an inspector", { module: "server", path: "startServer.coordinator", expected: "a coordinator, options.memory or options.inspector" });
  }
  const limits = resolveServerLimits(options.limits);
  const host = options.host ?? "127.0.0.1";
  const agent = options.agentName ?? "agent";
  const memory = (): Memory | undefined => options.memory ?? (options.coordinator ? memoryOf(options.coordinator) : undefined);

  const app = Fastify({ logger: false, ...fastifyLimitOptions(limits), ajv: { customOptions: { coerceTypes: true, removeAdditional: false, useDefaults: true } } });
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error.validation) {
      const issue = error.validation[0];
      const params = issue?.params as { missingProperty?: string; additionalProperty?: string } | undefined;
      const parameter = String(params?.missingProperty ?? params?.additionalProperty ?? issue?.instancePath.replace(/^\//, "") ?? "");
      const problem = params?.missingProperty !== undefined ? "is required" : (issue?.message ?? "is not valid");
      return reply.code(400).send({ statusCode: 400, error: "Bad Request", code: "INVALID_PARAMETER", parameter, message: `query parameter ${parameter} ${problem}` });
    }
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    return reply.code(status).send({ statusCode: status, error: status === 500 ? "Internal Server Error" : error.name, code: error.code ?? "INTERNAL", message: error.message });
  });
  app.setNotFoundHandler((request, reply) => reply.code(404).send({ statusCode: 404, error: "Not Found", code: "NOT_FOUND", message: `no route ${request.method} ${request.url.split("?")[0]}` }));

  registerHostGuard(app, host);
  if (options.token !== undefined) registerTokenGuard(app, options.token, { inspector: options.inspector !== undefined });

  const withMemory = <T>(reply: { code(n: number): { send(body: unknown): T } }) => {
    const found = memory();
    if (found === undefined) reply.code(503).send({ statusCode: 503, error: "Service Unavailable", code: "NO_MEMORY", message: "no memory is mounted in this session (config \"memory\" or MEMORY_* variables)" });
    return found;
  };

  if (options.inspector === undefined) registerRouteIndex(app, agent);

  app.get("/openapi.json", { config: { summary: "The OpenAPI 3.1 document of /memory/*" } }, async () => openApiDocument(agent, options.token !== undefined));

  app.get<{ Querystring: { limit?: number; session_id?: string } }>("/memory/events", { config: { summary: ROUTE_SUMMARIES.events }, schema: { querystring: eventsQuerySchema } }, async (request, reply) => {
    const found = withMemory(reply);
    if (found === undefined) return reply;
    const limit = request.query.limit ?? LIMIT_DEFAULT;
    const sessionId = request.query.session_id;
    const events = sessionId === undefined ? (await recentMemoryEvents(found, { limit })).map((r) => tagged(r.event, r.sessionId)) : (await found.getSessionEvents(sessionId)).slice(-limit).map((e) => tagged(e, sessionId));
    return { agent, events, total: events.length };
  });

  app.get("/memory/sessions", { config: { summary: ROUTE_SUMMARIES.sessions } }, async (_request, reply) => {
    const found = withMemory(reply);
    if (found === undefined) return reply;
    const sessions = await found.listSessions();
    return { agent, sessions, total: sessions.length };
  });

  if (options.inspector !== undefined) registerInspectorRoutes(app, { ...options.inspector, memory });

  applyConnectionCap(app.server, limits);
  await app.listen({ port, host });
  const address = app.server.address();
  const boundPort = typeof address === "object" && address !== null ? address.port : port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${boundPort}`,
    fastify: app,
    close: () => (closing ??= app.close()),
  };
}

// ---- private helpers ----

type ServedEvent = MemoryEventJson & { session_id: string };

function tagged(event: Parameters<typeof MemoryEvent.toJSON>[0], sessionId: string): ServedEvent {
  return { ...MemoryEvent.toJSON(event), session_id: sessionId };
}
