/**
 * The Inspector's page as a fastify plugin (`startServer` registers it at `/`): a shell without
 * data, its script and style from /inspector/assets/ (inspectorRoutes), under the CSP
 * `INSPECTOR_CSP`.
 *
 * With `token`, the page has a guard of its own, an `onRequest` hook in this plugin's context — it
 * is the one route a person opens by hand, so it logs in and refuses as a page, not as JSON:
 *
 * | request | answer |
 * |---|---|
 * | `GET <page>?token=<the token>` | 303 to the page without the token (it leaves the address bar, the history and any Referer), setting the session cookie `HttpOnly; SameSite=Strict; Path=/` (`Secure` over https or when a proxy says so in `X-Forwarded-Proto`), as Jupyter does |
 * | `GET <page>?token=` anything else (wrong, empty, repeated) | 401, the login page saying that token is not this server's; no cookie |
 * | the bearer header or the guard's session cookie (token-guard.ts) | the page |
 * | neither | 401, a small HTML page (no script, no data) saying to open `/?token=<token>`, with a form doing just that |
 */
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { INSPECTOR_CSP, inspectorAssets, inspectorPageHtml } from "@amplifier-ts/inspector";
import { tokenGuardOption, type GuardHook, type TokenGuard } from "./token-guard.js";

export interface InspectorPageOptions {
  /** The page wants it; share one `createTokenGuard()` with inspectorRoutes so the login opens the data too. */
  token?: string | TokenGuard;
}

/** The headers of everything the Inspector serves. */
export const INSPECTOR_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy": INSPECTOR_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
});

/** The login page's own policy: no script at all, a form that may only submit here. */
const LOGIN_CSP = "default-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export const inspectorPage: FastifyPluginAsync<InspectorPageOptions> = async (app, options) => {
  const guard = tokenGuardOption(options.token, "inspectorPage.token");
  if (guard !== undefined) app.addHook("onRequest", pageGuard(guard));
  app.get("/", async (_request, reply) => {
    inspectorAssets(); // INSPECTOR/ASSETS_MISSING now rather than a blank page
    return reply.headers(INSPECTOR_SECURITY_HEADERS).type("text/html; charset=utf-8").send(inspectorPageHtml());
  });
};

// ---- private helpers ----

function pageGuard(guard: TokenGuard): GuardHook {
  return async (request, reply) => {
    // The page's own path, as the router matched it (the login lands back on it).
    const page = request.routeOptions.url ?? "/";
    const given = request.method === "GET" ? tokensIn((request.query as Record<string, unknown> | undefined)?.token) : [];
    if (given.length > 0) {
      if (given.length !== 1 || !guard.isToken(given[0]!)) return refusePage(reply, page, "That token is not this server's.");
      const secure = request.protocol === "https" || /^\s*https\s*(,|$)/i.test(String(request.headers["x-forwarded-proto"] ?? ""));
      const cookie = guard.sessionCookie(request);
      return reply
        .code(303)
        .headers({ location: page, "cache-control": "no-store", "referrer-policy": "no-referrer" })
        .header("set-cookie", `${cookie.name}=${cookie.value}; Path=/; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`)
        .send();
    }
    if (guard.authorizes(request)) return undefined;
    return refusePage(reply, page, "This Inspector wants its token.");
  };
}

function refusePage(reply: FastifyReply, page: string, why: string): FastifyReply {
  const action = escapeHtml(page);
  const html = [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8"><title>amplifier-ts Inspector: token needed</title></head><body>',
    `<h1>amplifier-ts Inspector</h1><p>${why} Open it as <code>${action}?token=&lt;token&gt;</code> (the token given to <code>--token</code> or <code>AMPLIFIER_SERVER_TOKEN</code>), or enter it here:</p>`,
    `<form method="get" action="${action}"><input name="token" type="password" autocomplete="off" aria-label="token"> <button type="submit">open</button></form>`,
    "</body></html>",
  ].join("\n");
  return reply
    .code(401)
    .headers({ "content-security-policy": LOGIN_CSP, "x-content-type-options": "nosniff", "x-frame-options": "DENY", "referrer-policy": "no-referrer", "cache-control": "no-store" })
    .type("text/html; charset=utf-8")
    .send(html);
}

/** The `token` query parameter as the router parsed it: absent, once, or repeated. */
function tokensIn(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
