/**
 * The bearer token's guard (`startServer({ token })`): one `onRequest` hook for every route but
 * `/openapi.json` (the 404 handler included), decided on the route the router chose
 * (`request.routeOptions.url`), never on the raw URL. It runs after the host guard (host-guard.ts):
 * on a loopback bind a foreign Host is refused before any token is looked at. A request passes with
 * either credential:
 *
 * | credential | how it is given | checked |
 * |---|---|---|
 * | `Authorization: Bearer <token>` | scripts, curl, the /memory clients | HMAC-SHA256 of both sides under a per-server random key, compared with `timingSafeEqual` (fixed length: no timing and no length leak) |
 * | the session cookie `amplifier_inspector_<port>` | a browser, after `GET /?token=<token>` | its value against the expected one, `timingSafeEqual` |
 *
 * The login, as Jupyter does it: `GET /?token=<token>` (only with the Inspector) with the right
 * token answers 303 to `/` (the token leaves the address bar, the history and any Referer) and sets
 * the cookie `HttpOnly; SameSite=Strict; Path=/` (`Secure` when the request came over https, or a
 * proxy says so in `X-Forwarded-Proto`). The cookie's value is not the token: it is the HMAC of the
 * token under a key drawn when the server starts, so a leaked cookie reveals no token and ends with
 * the server; the port in its name keeps two servers on one host (cookies ignore ports) apart. A
 * wrong token answers 401.
 *
 * Refusals (401): the Inspector's page and code get a small HTML page (no script, no data) saying
 * to open `/?token=<token>`, with a form doing just that; every other route the JSON error
 * `UNAUTHORIZED` with `WWW-Authenticate: Bearer`, as before the cookie existed.
 *
 * The cookie is accepted on every guarded route, the /memory endpoints included: they only read
 * (GET), a SameSite=Strict cookie is not sent by another site's requests, and the server sends no
 * CORS header, so no other origin can read an answer; the bearer header works there as it did.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

export interface TokenGuardOptions {
  /** The Inspector is mounted: `GET /?token=` logs in; its page and code are refused as HTML/text. */
  inspector: boolean;
}

/** The Inspector's page and code: refused with a page a person can act on, not JSON. */
const PAGE_PATHS = new Set(["/", "/inspector/assets/inspector.js", "/inspector/assets/inspector.css"]);

/** The login page's own policy: no script at all, a form that may only submit here. */
const LOGIN_CSP = "default-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const COOKIE_PREFIX = "amplifier_inspector_";

export function registerTokenGuard(app: FastifyInstance, token: string, options: TokenGuardOptions): void {
  const key = randomBytes(32);
  const digest = (value: string) => createHmac("sha256", key).update(value).digest();
  const expectedToken = digest(token);
  const sameToken = (given: string) => timingSafeEqual(digest(given), expectedToken);
  const expectedBearer = digest(`Bearer ${token}`);
  const cookieValue = createHmac("sha256", key).update(`inspector-session\0${token}`).digest("base64url");
  const expectedCookie = Buffer.from(cookieValue);
  const cookieName = () => `${COOKIE_PREFIX}${(app.server.address() as AddressInfo | null)?.port ?? 0}`;

  const authorized = (request: FastifyRequest): boolean => {
    const header = request.headers.authorization;
    if (header !== undefined && timingSafeEqual(digest(header), expectedBearer)) return true;
    const cookie = readCookie(request.headers.cookie, cookieName());
    if (cookie === undefined) return false;
    const given = Buffer.from(cookie);
    return given.length === expectedCookie.length && timingSafeEqual(given, expectedCookie);
  };

  app.addHook("onRequest", async (request, reply) => {
    // The route the router chose (undefined for the 404 handler), never the raw URL: `/%6Fpenapi.json`
    // and `http://x/openapi.json` route to /openapi.json too, and only the routed path says so.
    const path = request.routeOptions.url;
    if (path === "/openapi.json") return;
    const page = options.inspector && path !== undefined && PAGE_PATHS.has(path);
    if (page && path === "/" && request.method === "GET") {
      const given = tokensIn((request.query as Record<string, unknown> | undefined)?.token);
      if (given.length > 0) {
        if (given.length !== 1 || !sameToken(given[0]!)) return refusePage(reply, "That token is not this server's.");
        const secure = request.protocol === "https" || /^\s*https\s*(,|$)/i.test(String(request.headers["x-forwarded-proto"] ?? ""));
        return reply
          .code(303)
          .headers({ location: "/", "cache-control": "no-store", "referrer-policy": "no-referrer" })
          .header("set-cookie", `${cookieName()}=${cookieValue}; Path=/; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`)
          .send();
      }
    }
    if (authorized(request)) return;
    if (page && path === "/") return refusePage(reply, "This Inspector wants its token.");
    if (page) return reply.code(401).headers({ "cache-control": "no-store", "x-content-type-options": "nosniff" }).type("text/plain; charset=utf-8").send("401: open /?token=<token> first\n");
    return reply.code(401).header("www-authenticate", "Bearer").send({ statusCode: 401, error: "Unauthorized", code: "UNAUTHORIZED", message: "missing or wrong bearer token (Authorization: Bearer <token>)" });
  });
}

// ---- private helpers ----

function refusePage(reply: FastifyReply, why: string) {
  const html = [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8"><title>amplifier-ts Inspector: token needed</title></head><body>',
    `<h1>amplifier-ts Inspector</h1><p>${why} Open it as <code>/?token=&lt;token&gt;</code> (the token given to <code>--token</code> or <code>AMPLIFIER_SERVER_TOKEN</code>), or enter it here:</p>`,
    '<form method="get" action="/"><input name="token" type="password" autocomplete="off" aria-label="token"> <button type="submit">open</button></form>',
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

/** The value of cookie `name` in a Cookie header (`a=1; b=2`), or undefined. */
function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
