/**
 * `GET /` of a server without the Inspector: a small JSON that names the routes, so a person who
 * opens the address sees what it serves instead of a 404.
 *
 * `{ agent, inspector: false, routes: [{ method, path, summary? }], openapi: "/openapi.json" }`
 *
 * The list is what fastify registered (its `onRoute` hook, HEAD twins left out), not a table kept by
 * hand: a route added later is listed by itself. A route's `summary` is its `config.summary`.
 */
import type { FastifyInstance } from "fastify";

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
export function registerRouteIndex(app: FastifyInstance, agent: string): void {
  const routes: IndexedRoute[] = [];
  app.addHook("onRoute", (route) => {
    const summary = route.config?.summary;
    for (const method of [route.method].flat()) {
      if (method === "HEAD") continue;
      routes.push({ method, path: route.url, ...(typeof summary === "string" ? { summary } : {}) });
    }
  });
  app.get("/", { config: { summary: "This list of routes" } }, async () => ({ agent, inspector: false, routes, openapi: "/openapi.json" }));
}
