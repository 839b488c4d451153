/**
 * The bearer token's guard. A plugin given a token (`memoryRoutes`, `inspectorRoutes`,
 * `inspectorPage`, or `startServer({ token })` for all of them) adds it as an `onRequest` hook in
 * its own context (fastify encapsulation): it guards that plugin's routes and nothing else — the
 * host's routes, /openapi.json, another plugin's prefix are not its business, and no path is ever
 * compared as a string. On a loopback bind the host guard (host-guard.ts, on the root instance)
 * runs first: a foreign Host is refused before any token is looked at. A request passes with either
 * credential:
 *
 * | credential | how it is given | checked |
 * |---|---|---|
 * | `Authorization: Bearer <token>` | scripts, curl, the /memory clients | HMAC-SHA256 of both sides under the guard's random key, compared with `timingSafeEqual` (fixed length: no timing and no length leak) |
 * | the session cookie `amplifier_inspector_<port>` | a browser, after the Inspector's login `GET /?token=<token>` (inspector-page-route.ts) | its value against the expected one, `timingSafeEqual` |
 *
 * The cookie's value is not the token: it is the HMAC of the token under a key drawn when the guard
 * is made, so a leaked cookie reveals no token and ends with the server; the port in its name keeps
 * two servers on one host (cookies ignore ports) apart. Plugins that should share the login share
 * one guard (`createTokenGuard(token)`, passed as their `token`); each string token draws its own key.
 *
 * The cookie is accepted on every guarded route, the /memory endpoints included: they only read
 * (GET), a SameSite=Strict cookie is not sent by another site's requests, and the server sends no
 * CORS header, so no other origin can read an answer.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";
import { createError } from "@amplifier-ts/contracts";

export interface TokenGuard {
  /** Whether the request carries the bearer header or this guard's session cookie. */
  authorizes(request: FastifyRequest): boolean;
  /** Whether `given` is the token (the Inspector's login form and `/?token=`). */
  isToken(given: string): boolean;
  /** The session cookie a login sets: its name (per port of the serving socket) and value. */
  sessionCookie(request: FastifyRequest): { name: string; value: string };
}

/** An `onRequest` hook: undefined lets the request through; a sent reply refuses it. */
export type GuardHook = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;

const COOKIE_PREFIX = "amplifier_inspector_";

/** A guard for `token` under a fresh random key. INVALID_ARGUMENT for anything but a non-empty string. */
export function createTokenGuard(token: string, path = "createTokenGuard.token"): TokenGuard {
  if (typeof token !== "string" || token.length === 0) throw createError("INVALID_ARGUMENT", undefined, { module: "server", path, expected: "a non-empty string", given: token });
  const key = randomBytes(32);
  const digest = (value: string) => createHmac("sha256", key).update(value).digest();
  const expectedToken = digest(token);
  const expectedBearer = digest(`Bearer ${token}`);
  const cookieValue = createHmac("sha256", key).update(`inspector-session\0${token}`).digest("base64url");
  const expectedCookie = Buffer.from(cookieValue);
  const cookieName = (request: FastifyRequest) => `${COOKIE_PREFIX}${(request.server.server.address() as AddressInfo | null)?.port ?? 0}`;
  return {
    authorizes(request) {
      const header = request.headers.authorization;
      if (header !== undefined && timingSafeEqual(digest(header), expectedBearer)) return true;
      const cookie = readCookie(request.headers.cookie, cookieName(request));
      if (cookie === undefined) return false;
      const given = Buffer.from(cookie);
      return given.length === expectedCookie.length && timingSafeEqual(given, expectedCookie);
    },
    isToken: (given) => timingSafeEqual(digest(given), expectedToken),
    sessionCookie: (request) => ({ name: cookieName(request), value: cookieValue }),
  };
}

/** A plugin's `token` option as a guard: a string gets a guard of its own, a guard is shared, undefined guards nothing. */
export function tokenGuardOption(token: string | TokenGuard | undefined, path: string): TokenGuard | undefined {
  if (token === undefined) return undefined;
  if (typeof token === "string") return createTokenGuard(token, path);
  if (typeof token === "object" && token !== null && typeof token.authorizes === "function" && typeof token.isToken === "function" && typeof token.sessionCookie === "function") return token;
  throw createError("INVALID_ARGUMENT", undefined, { module: "server", path, expected: "a non-empty string or a guard from createTokenGuard()", given: token });
}

/** The hook of a JSON route: without a credential, 401 `UNAUTHORIZED` with `WWW-Authenticate: Bearer`. */
export function requireBearer(guard: TokenGuard): GuardHook {
  return async (request, reply) => {
    if (guard.authorizes(request)) return undefined;
    return reply.code(401).header("www-authenticate", "Bearer").send({ statusCode: 401, error: "Unauthorized", code: "UNAUTHORIZED", message: "missing or wrong bearer token (Authorization: Bearer <token>)" });
  };
}

// ---- private helpers ----

/** The value of cookie `name` in a Cookie header (`a=1; b=2`), or undefined. */
function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
