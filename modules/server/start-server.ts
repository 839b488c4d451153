import Fastify, { type FastifyInstance } from "fastify";
import { createError, memoryOf, type CoordinatorContract, type Memory } from "@amplifier-ts/contracts";
import type { InspectorOptions } from "@amplifier-ts/inspector";
import { registerHostGuard } from "./host-guard.js";
import { inspectorPage } from "./inspector-page-route.js";
import { INSPECTOR_PREFIX, inspectorRoutes } from "./inspector-routes.js";
import { replyNotFound, replyWithJsonError } from "./json-errors.js";
import { memoryRoutes } from "./memory-routes.js";
import { openApiDocument } from "./openapi.js";
import { registerRouteIndex } from "./route-index.js";
import { applyConnectionCap, fastifyLimitOptions, resolveServerLimits, type ServerLimits } from "./server-limits.js";
import { createTokenGuard, requireBearer } from "./token-guard.js";

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
 * | route | answers | registered as |
 * |---|---|---|
 * | GET /memory/events, /memory/sessions | the memory API (memory-routes.ts) | `register(memoryRoutes, { prefix: "/memory" })` |
 * | GET /openapi.json | the OpenAPI 3.1 document (no token needed) | a route of the root |
 * | GET / | with `inspector`: the Inspector page (inspector-page-route.ts) | `register(inspectorPage)` |
 * | GET /inspector/… | with `inspector`: its code and data (inspector-routes.ts) | `register(inspectorRoutes, { prefix: "/inspector" })` |
 * | GET / | without `inspector`: `{ agent, inspector: false, routes, openapi }`, the routes it serves (route-index.ts) | a route of the root |
 *
 * Guards, in this order: bound to a loopback address, only a loopback Host (127.x, localhost,
 * [::1]) is answered on every route, the 404 handler included — 403 `FORBIDDEN_HOST` otherwise,
 * whatever the token (host-guard.ts, one hook on the root, against DNS rebinding). With `token`,
 * one guard (token-guard.ts: the bearer header or the Inspector's cookie) is handed to each plugin,
 * which scopes it to its own routes, and set as a hook of the index and of the 404 handler;
 * /openapi.json has none. Both decide on the routed request, never on the raw URL's spelling.
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
  const guard = options.token === undefined ? undefined : createTokenGuard(options.token, "startServer.token");
  if (options.coordinator === undefined && options.memory === undefined && options.inspector === undefined) {
    throw createError("INVALID_ARGUMENT", "startServer() needs a coordinator (its memory capability), a memory or an inspector", { module: "server", path: "startServer.coordinator", expected: "a coordinator, options.memory or options.inspector" });
  }
  const limits = resolveServerLimits(options.limits);
  const host = options.host ?? "127.0.0.1";
  const agent = options.agentName ?? "agent";
  const memory = (): Memory | undefined => options.memory ?? (options.coordinator ? memoryOf(options.coordinator) : undefined);

  const app = Fastify({ logger: false, ...fastifyLimitOptions(limits), ajv: { customOptions: { coerceTypes: true, removeAdditional: false, useDefaults: true } } });
  app.setErrorHandler(replyWithJsonError);
  app.setNotFoundHandler(guard === undefined ? {} : { preValidation: requireBearer(guard) }, replyNotFound);
  registerHostGuard(app, host);

  const token = guard === undefined ? {} : { token: guard };
  if (options.inspector === undefined) registerRouteIndex(app, agent, guard === undefined ? undefined : requireBearer(guard));
  app.get("/openapi.json", { config: { summary: "The OpenAPI 3.1 document of /memory/*" } }, async () => openApiDocument(agent, guard !== undefined));
  app.register(memoryRoutes, { prefix: "/memory", memory, agentName: agent, ...token });
  if (options.inspector !== undefined) {
    app.register(inspectorPage, token);
    app.register(inspectorRoutes, { prefix: INSPECTOR_PREFIX, ...options.inspector, memory, ...token });
  }

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
