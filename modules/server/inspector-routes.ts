/**
 * The Inspector's code and data as a fastify plugin, registered at `/inspector`
 * (`app.register(inspectorRoutes, { prefix: "/inspector", sources, token })`; the page itself is
 * inspectorPage, at `/`):
 *
 * | route (under /inspector) | answers |
 * |---|---|
 * | GET /assets/inspector.js, .css | the page's bundle (built at build time; no CDN) |
 * | GET /api/sessions | `{ sessions }`: every session of every source and of the memory |
 * | GET /api/session?source=&id=&analysis= | the session: messages, memory events and (unless `analysis=false`: then `analysisPending`) the analysis; 404 INSPECTOR/UNKNOWN_SESSION |
 * | GET /api/analysis?source=&id=&wait=&budget=&model= | `{ analysis, tokens }` or `{ analysisError }`: the SIMULATION — the session replayed under `budget` and `model` (absent: the analyzer's defaults; one run per content and simulation, shared by concurrent requests, then kept); `wait=false` answers at once with `{ analysisProgress }` while it runs. What was sent comes with the session (`recorded`) |
 * | GET /api/live?source=&id= | text/event-stream: `event: changed` with `{ messages }` when the session changes; a `: ping` comment every 15 s; 404 for an unknown session, 503 INSPECTOR/TOO_MANY_STREAMS over the limits (live-streams.ts) |
 *
 * The page loads its code from /inspector/assets/ and its data from /inspector/api/, so another
 * prefix is refused when the plugin registers (INVALID_ARGUMENT) rather than serving a blank page.
 *
 * With `token`, each of the two contexts carries its own guard hook (token-guard.ts): the code
 * answers a person's browser (401 text saying to open `/?token=<token>`), the data answers scripts
 * (the JSON 401 `UNAUTHORIZED`). Open streams end and analyses stop before the server closes.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from "fastify";
import { createError } from "@amplifier-ts/contracts";
import { createInspector, inspectorAssets, inspectorErrors, type Inspector, type InspectorOptions, type SimulationOptions } from "@amplifier-ts/inspector";
import { INSPECTOR_SECURITY_HEADERS } from "./inspector-page-route.js";
import { replyWithJsonError } from "./json-errors.js";
import { registerLiveStreams, sessionQuery } from "./live-streams.js";
import { requireBearer, tokenGuardOption, type GuardHook, type TokenGuard } from "./token-guard.js";

export interface InspectorRoutesOptions extends InspectorOptions {
  /** The code and the data want it; share one `createTokenGuard()` with inspectorPage so its login opens them. */
  token?: string | TokenGuard;
}

/** Where the page expects its code and data (the prefix the plugin must be registered at). */
export const INSPECTOR_PREFIX = "/inspector";

export const inspectorRoutes: FastifyPluginAsync<InspectorRoutesOptions> = async (app, options) => {
  if (app.prefix !== INSPECTOR_PREFIX) {
    throw createError("INVALID_ARGUMENT", `inspectorRoutes is registered at "${app.prefix}"`, { module: "server", path: "inspectorRoutes.prefix", expected: `"${INSPECTOR_PREFIX}": the page loads its code from ${INSPECTOR_PREFIX}/assets/ and its data from ${INSPECTOR_PREFIX}/api/`, given: app.prefix });
  }
  const guard = tokenGuardOption(options.token, "inspectorRoutes.token");
  const inspector = createInspector(options);
  app.setErrorHandler(replyWithJsonError);

  app.register(async (assets) => {
    if (guard !== undefined) assets.addHook("onRequest", refuseCodeWithoutToken(guard));
    assets.get("/inspector.js", async (_request, reply) => reply.headers(INSPECTOR_SECURITY_HEADERS).type("text/javascript; charset=utf-8").send(inspectorAssets().js));
    assets.get("/inspector.css", async (_request, reply) => reply.headers(INSPECTOR_SECURITY_HEADERS).type("text/css; charset=utf-8").send(inspectorAssets().css));
  }, { prefix: "/assets" });

  app.register(async (api) => {
    if (guard !== undefined) api.addHook("onRequest", requireBearer(guard));
    registerDataRoutes(api, inspector, options.liveStreams);
  }, { prefix: "/api" });
};

// ---- private helpers ----

const analysisQuery = {
  ...sessionQuery,
  // budget, model: the simulation the user picked on the page (absent = the analyzer's defaults).
  properties: { ...sessionQuery.properties, wait: { type: "boolean", default: true }, budget: { type: "integer", minimum: 1, maximum: 100_000_000 }, model: { type: "string", pattern: "^[A-Za-z0-9._:/@-]{1,128}$" } },
} as const;

const sessionViewQuery = {
  ...sessionQuery,
  properties: { ...sessionQuery.properties, analysis: { type: "boolean", default: true } },
} as const;

function registerDataRoutes(api: FastifyInstance, inspector: Inspector, liveStreams: InspectorOptions["liveStreams"]): void {
  const endStreams = registerLiveStreams(api, inspector, liveStreams, INSPECTOR_SECURITY_HEADERS);
  // Open streams end before the server closes (it would otherwise wait for them); analyses under way stop.
  api.addHook("preClose", async () => {
    endStreams();
    inspector.close();
  });

  api.get("/sessions", async (_request, reply) => reply.headers(INSPECTOR_SECURITY_HEADERS).send({ sessions: await inspector.listSessions() }));

  const unknownSession = (error: unknown, reply: FastifyReply) => {
    if (!inspectorErrors.is(error, "UNKNOWN_SESSION")) throw error;
    return reply.code(404).send({ statusCode: 404, error: "Not Found", code: error.code, message: error.message });
  };

  api.get<{ Querystring: { source: string; id: string; analysis: boolean } }>("/session", { schema: { querystring: sessionViewQuery } }, async (request, reply) => {
    try {
      return reply.headers(INSPECTOR_SECURITY_HEADERS).send(await inspector.session(request.query.source, request.query.id, { analysis: request.query.analysis }));
    } catch (error) {
      return unknownSession(error, reply);
    }
  });

  api.get<{ Querystring: { source: string; id: string; wait: boolean; budget?: number; model?: string } }>("/analysis", { schema: { querystring: analysisQuery } }, async (request, reply) => {
    try {
      return reply.headers(INSPECTOR_SECURITY_HEADERS).send(await inspector.analysis(request.query.source, request.query.id, simulationOf(request.query), { wait: request.query.wait }));
    } catch (error) {
      return unknownSession(error, reply);
    }
  });
}

/** The code's guard: a browser loading the page's script or style without a credential gets a line a person can act on. */
function refuseCodeWithoutToken(guard: TokenGuard): GuardHook {
  return async (request, reply) => {
    if (guard.authorizes(request)) return undefined;
    return reply.code(401).headers({ "cache-control": "no-store", "x-content-type-options": "nosniff" }).type("text/plain; charset=utf-8").send("401: open /?token=<token> first\n");
  };
}

/** The page's simulation (?budget=&model=), or undefined for the analyzer's defaults. */
function simulationOf(query: { budget?: number; model?: string }): SimulationOptions | undefined {
  if (query.budget === undefined && query.model === undefined) return undefined;
  return { ...(query.budget === undefined ? {} : { budget: query.budget }), ...(query.model === undefined ? {} : { model: query.model }) };
}
