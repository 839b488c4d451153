/**
 * The memory API as a fastify plugin. `startServer` registers it at `/memory`; a host app mounts it
 * wherever it likes — `app.register(memoryRoutes, { prefix: "/api/memory", memory, token })`:
 *
 * | route (under the prefix) | answers |
 * |---|---|
 * | GET /events?limit=&session_id= | `{ agent, events, total }`: events as MemoryEvent JSON plus `session_id`, newest last, the newest `limit` (default 100, at most 1000); without session_id over every session, in the order they were added (the memory's getRecentEvents: no full read); an unknown session → 200 with no events, like any other empty result |
 * | GET /sessions | `{ agent, sessions, total }`: session ids, oldest first |
 *
 * Everything the API promises travels with the plugin, in its own context (fastify encapsulation):
 * with `token`, its `onRequest` guard (token-guard.ts) wants the token on these routes and on no
 * other of the host's; its errors are the JSON of json-errors.ts (400 `INVALID_PARAMETER` naming
 * the parameter, 503 `NO_MEMORY` while `memory` gives none). The query is validated by the host's
 * ajv: `startServer` refuses an unknown parameter (400); fastify's default options remove it instead.
 * The options are checked when the plugin registers: a bad one fails the host's `ready()`/`listen()`.
 */
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { createError, MemoryEvent, missingMemoryMethods, type Memory, type MemoryEventJson } from "@amplifier-ts/contracts";
import { recentMemoryEvents } from "@amplifier-ts/memory-base";
import { replyWithJsonError } from "./json-errors.js";
import { eventsQuerySchema, LIMIT_DEFAULT, ROUTE_SUMMARIES } from "./openapi.js";
import { requireBearer, tokenGuardOption, type TokenGuard } from "./token-guard.js";

export interface MemoryRoutesOptions {
  /** The memory served, or a function asked at each request (a coordinator's memory may be mounted later; undefined → 503 NO_MEMORY). */
  memory: Memory | (() => Memory | undefined);
  /** The `agent` field of every answer. Default "agent". */
  agentName?: string;
  /**
   * Every route of the plugin wants `Authorization: Bearer <token>` (or the Inspector's session
   * cookie of the same guard). A string draws a guard of its own; pass one `createTokenGuard()` to
   * several plugins to share the Inspector's login.
   */
  token?: string | TokenGuard;
}

export const memoryRoutes: FastifyPluginAsync<MemoryRoutesOptions> = async (app, options) => {
  const memory = memoryProvider(options.memory);
  const guard = tokenGuardOption(options.token, "memoryRoutes.token");
  const agent = options.agentName ?? "agent";
  if (typeof agent !== "string") throw createError("INVALID_ARGUMENT", undefined, { module: "server", path: "memoryRoutes.agentName", expected: "a string", given: agent });

  app.setErrorHandler(replyWithJsonError);
  if (guard !== undefined) app.addHook("onRequest", requireBearer(guard));

  const withMemory = (reply: FastifyReply): Memory | undefined => {
    const found = memory();
    if (found === undefined) reply.code(503).send({ statusCode: 503, error: "Service Unavailable", code: "NO_MEMORY", message: "no memory is mounted in this session (config \"memory\" or MEMORY_* variables)" });
    return found;
  };

  app.get<{ Querystring: { limit?: number; session_id?: string } }>("/events", { config: { summary: ROUTE_SUMMARIES.events }, schema: { querystring: eventsQuerySchema } }, async (request, reply) => {
    const found = withMemory(reply);
    if (found === undefined) return reply;
    const limit = request.query.limit ?? LIMIT_DEFAULT;
    const sessionId = request.query.session_id;
    const events = sessionId === undefined ? (await recentMemoryEvents(found, { limit })).map((r) => tagged(r.event, r.sessionId)) : (await found.getSessionEvents(sessionId)).slice(-limit).map((e) => tagged(e, sessionId));
    return { agent, events, total: events.length };
  });

  app.get("/sessions", { config: { summary: ROUTE_SUMMARIES.sessions } }, async (_request, reply) => {
    const found = withMemory(reply);
    if (found === undefined) return reply;
    const sessions = await found.listSessions();
    return { agent, sessions, total: sessions.length };
  });
};

// ---- private helpers ----

type ServedEvent = MemoryEventJson & { session_id: string };

function tagged(event: Parameters<typeof MemoryEvent.toJSON>[0], sessionId: string): ServedEvent {
  return { ...MemoryEvent.toJSON(event), session_id: sessionId };
}

/** The `memory` option as a function; INVALID_ARGUMENT for a value that is neither a Memory nor a function. */
function memoryProvider(memory: unknown): () => Memory | undefined {
  if (typeof memory === "function") return memory as () => Memory | undefined;
  const missing = missingMemoryMethods(memory);
  if (missing.length === 0) return () => memory as Memory;
  throw createError("INVALID_ARGUMENT", undefined, {
    module: "server",
    path: "memoryRoutes.memory",
    expected: `a Memory (missing: ${missing.join(", ")}) or a function returning one`,
    given: memory === null || typeof memory !== "object" ? memory : "an object",
  });
}
