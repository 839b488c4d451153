/**
 * The DNS-rebinding guard of a loopback-bound server (`startServer`, host 127.x, localhost or ::1).
 *
 * A web page on `attacker.example` can re-point its own name at 127.0.0.1; the browser then sends
 * that page's requests to this server with `Host: attacker.example` and lets the page read the
 * answers (same origin, as far as the browser knows). Only the Host tells such a request apart, so
 * a loopback-bound server answers only requests that name a loopback host:
 *
 * | request | answer |
 * |---|---|
 * | `Host` 127.x.y.z, localhost or [::1] (any case, any port, one trailing dot) | routed as usual (the token guard, if any, comes next) |
 * | another `Host`, a malformed one, or none (HTTP/1.0) | 403 `FORBIDDEN_HOST`, before the token is looked at |
 * | an absolute-form target (`GET http://name/path`) | its authority must be loopback too (RFC 9112 §3.2.2: it overrides Host) |
 *
 * One `onRequest` hook on the root instance: it runs for every route — /memory/*, /openapi.json,
 * /, /inspector/*, the index and the 404 handler alike, before any plugin's own hooks (the token
 * guards are scoped to their plugins, this one is not) — so nothing depends on how the raw URL is
 * spelled (`/%69nspector/…` and `http://x/inspector/…` both route to the Inspector; neither is
 * looked at as a string). Bound to another address, the Host names whatever the clients use, and
 * the token guards the server instead.
 */
import { isIP } from "node:net";
import type { FastifyInstance } from "fastify";

/** What a refused request is told: what was expected, and why. */
const FORBIDDEN_HOST_MESSAGE = "this server is bound to a loopback address and answers requests for 127.0.0.1, localhost or [::1] only (DNS-rebinding guard)";

/** Registers the guard on `app` (the root instance) when `boundHost` is a loopback address; a no-op otherwise. */
export function registerHostGuard(app: FastifyInstance, boundHost: string): void {
  if (!isLoopbackHostName(boundHost)) return;
  app.addHook("onRequest", async (request, reply) => {
    if (namesLoopback(request.headers.host) && targetIsLoopback(request.raw.url ?? "/")) return;
    return reply.code(403).send({ statusCode: 403, error: "Forbidden", code: "FORBIDDEN_HOST", message: FORBIDDEN_HOST_MESSAGE });
  });
}

/**
 * Whether a host name (no port; IPv6 with or without brackets) is this machine's loopback:
 * `localhost`, 127.0.0.0/8 in dotted-quad form, or ::1 in any spelling. Case-insensitive; one
 * trailing dot (the fully-qualified spelling) is allowed.
 */
export function isLoopbackHostName(name: string): boolean {
  let host = name.toLowerCase();
  if (host.endsWith(".")) host = host.slice(0, -1);
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  if (isIP(host) === 6) return expandsToLoopback6(host);
  return false;
}

// ---- private helpers ----

/** `name`, `name:port`, `[v6]` or `[v6]:port` — the only shapes a Host header may take here. */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i;

function namesLoopback(header: string | undefined): boolean {
  if (header === undefined) return false;
  const match = HOST_HEADER.exec(header.trim());
  return match !== null && isLoopbackHostName(match[1]!);
}

/** Origin-form (`/path`) names no host; an absolute-form target must name a loopback one. */
function targetIsLoopback(target: string): boolean {
  if (target.startsWith("/")) return true;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return false;
  }
  return url.username === "" && url.password === "" && isLoopbackHostName(url.hostname);
}

/** ::1 however it is written (`0:0:0:0:0:0:0:1`, `::0:1`); not the IPv4-mapped forms. */
function expandsToLoopback6(address: string): boolean {
  try {
    return new URL(`http://[${address}]/`).hostname === "[::1]";
  } catch {
    return false;
  }
}
