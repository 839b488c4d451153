/**
 * The Inspector's routes on the server (fastify):
 *
 * | route | answers | token |
 * |---|---|---|
 * | GET / | the page: a shell without data, its script and style from /inspector/assets/, under the CSP `INSPECTOR_CSP`; `/?token=` logs in (token-guard.ts) | needed |
 * | GET /inspector/assets/inspector.js, .css | the page's bundle (built at build time; no CDN) | needed |
 * | GET /inspector/api/sessions | `{ sessions }`: every session of every source and of the memory | needed |
 * | GET /inspector/api/session?source=&id=&analysis= | the session: messages, memory events and (unless `analysis=false`: then `analysisPending`) the analysis; 404 INSPECTOR/UNKNOWN_SESSION | needed |
 * | GET /inspector/api/analysis?source=&id=&wait=&budget=&model= | `{ analysis, tokens }` or `{ analysisError }`: the SIMULATION — the session replayed under `budget` and `model` (absent: the analyzer's defaults; one run per content and simulation, shared by concurrent requests, then kept); `wait=false` answers at once with `{ analysisProgress }` while it runs. What was sent comes with the session (`recorded`) | needed |
 * | GET /inspector/api/live?source=&id= | text/event-stream: `event: changed` with `{ messages }` when the session changes; a `: ping` comment every 15 s; 404 for an unknown session, 503 INSPECTOR/TOO_MANY_STREAMS over the limits (live-streams.ts) | needed |
 *
 * With a token (token-guard.ts), every route above wants it — the page and its code too: a browser
 * opens `/?token=<token>` once, gets a session cookie and a redirect to `/`, and the page's data
 * requests (the live stream included) carry the cookie; scripts may send `Authorization: Bearer`.
 *
 * Bound to a loopback address, the server answers only requests whose Host names a loopback
 * address, on every route these included (host-guard.ts, before the token: no login either).
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import { createInspector, INSPECTOR_CSP, inspectorAssets, inspectorErrors, inspectorPageHtml, type InspectorOptions, type SimulationOptions } from "@amplifier-ts/inspector";
import { registerLiveStreams, sessionQuery } from "./live-streams.js";

const SECURITY_HEADERS = {
  "content-security-policy": INSPECTOR_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
};

const analysisQuery = {
  ...sessionQuery,
  // budget, model: the simulation the user picked on the page (absent = the analyzer's defaults).
  properties: { ...sessionQuery.properties, wait: { type: "boolean", default: true }, budget: { type: "integer", minimum: 1, maximum: 100_000_000 }, model: { type: "string", pattern: "^[A-Za-z0-9._:/@-]{1,128}$" } },
} as const;

const sessionViewQuery = {
  ...sessionQuery,
  properties: { ...sessionQuery.properties, analysis: { type: "boolean", default: true } },
} as const;

export function registerInspectorRoutes(app: FastifyInstance, options: InspectorOptions): void {
  const inspector = createInspector(options);
  const endStreams = registerLiveStreams(app, inspector, options.liveStreams, SECURITY_HEADERS);
  // Open streams end before the server closes (it would otherwise wait for them); analyses under way stop.
  app.addHook("preClose", async () => {
    endStreams();
    inspector.close();
  });

  app.get("/", async (_request, reply) => {
    inspectorAssets(); // INSPECTOR/ASSETS_MISSING now rather than a blank page
    return reply.headers(SECURITY_HEADERS).type("text/html; charset=utf-8").send(inspectorPageHtml());
  });
  app.get("/inspector/assets/inspector.js", async (_request, reply) => reply.headers(SECURITY_HEADERS).type("text/javascript; charset=utf-8").send(inspectorAssets().js));
  app.get("/inspector/assets/inspector.css", async (_request, reply) => reply.headers(SECURITY_HEADERS).type("text/css; charset=utf-8").send(inspectorAssets().css));

  app.get("/inspector/api/sessions", async (_request, reply) => reply.headers(SECURITY_HEADERS).send({ sessions: await inspector.listSessions() }));

  const unknownSession = (error: unknown, reply: FastifyReply) => {
    if (!inspectorErrors.is(error, "UNKNOWN_SESSION")) throw error;
    return reply.code(404).send({ statusCode: 404, error: "Not Found", code: error.code, message: error.message });
  };

  app.get<{ Querystring: { source: string; id: string; analysis: boolean } }>("/inspector/api/session", { schema: { querystring: sessionViewQuery } }, async (request, reply) => {
    try {
      return reply.headers(SECURITY_HEADERS).send(await inspector.session(request.query.source, request.query.id, { analysis: request.query.analysis }));
    } catch (error) {
      return unknownSession(error, reply);
    }
  });

  app.get<{ Querystring: { source: string; id: string; wait: boolean; budget?: number; model?: string } }>("/inspector/api/analysis", { schema: { querystring: analysisQuery } }, async (request, reply) => {
    try {
      return reply.headers(SECURITY_HEADERS).send(await inspector.analysis(request.query.source, request.query.id, simulationOf(request.query), { wait: request.query.wait }));
    } catch (error) {
      return unknownSession(error, reply);
    }
  });

}

/** The page's simulation (?budget=&model=), or undefined for the analyzer's defaults. */
function simulationOf(query: { budget?: number; model?: string }): SimulationOptions | undefined {
  if (query.budget === undefined && query.model === undefined) return undefined;
  return { ...(query.budget === undefined ? {} : { budget: query.budget }), ...(query.model === undefined ? {} : { model: query.model }) };
}
