/**
 * `GET /` of a server without the Inspector: a small JSON that names the routes, so a person who
 * opens the address sees what it serves instead of a 404.
 *
 * `{ agent, inspector: false, routes: [{ method, path, summary? }], openapi: "/openapi.json" }`
 *
 * The list is what fastify registered (its `onRoute` hook, HEAD twins left out), not a table kept by
 * hand: a route added later is listed by itself, a plugin's under its prefix. A route's `summary`
 * is its `config.summary`. With a token, the index carries the guard as a hook of its own route:
 * it names what the server holds, so it is guarded like the routes it names.
 */
import type { FastifyInstance } from "fastify";
import type { GuardHook } from "./token-guard.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** One line naming what the route answers, listed by the index at `/`. */
    summary?: string;
  }
}

export interface IndexedRoute {
  method: string;
  path: string;
  summary?: string;
}

/** Call before the routes it should list are added (the hook sees routes registered after it). */
export function registerRouteIndex(app: FastifyInstance, agent: string, guard?: GuardHook): void {
  const routes: IndexedRoute[] = [];
  app.addHook("onRoute", (route) => {
    const summary = route.config?.summary;
    for (const method of [route.method].flat()) {
      if (method === "HEAD") continue;
      routes.push({ method, path: route.url, ...(typeof summary === "string" ? { summary } : {}) });
    }
  });
  app.get("/", { config: { summary: "This list of routes" }, ...(guard === undefined ? {} : { onRequest: guard }) }, async () => ({ agent, inspector: false, routes, openapi: "/openapi.json" }));
}
