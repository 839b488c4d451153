/**
 * The request limits of `startServer({ limits })`: how long a client may take, how many may hold a
 * connection, how large a request may be. Every figure has a default; `limits` overrides any of them.
 *
 * | limit | default | what happens beyond it |
 * |---|---|---|
 * | `requestTimeoutMs` | 30 000 | the request line, headers (and any body) did not all arrive in time: Node answers 408 and closes the connection (a slow client cannot hold a connection open by trickling bytes) |
 * | `idleTimeoutMs` | 120 000 | no byte either way for that long (a client that stopped reading its answer, a silent socket): the connection is destroyed |
 * | `keepAliveTimeoutMs` | 5 000 | an idle keep-alive connection after its last answer is closed |
 * | `maxConnections` | 512 | new connections are dropped at accept (the client sees a reset) until some close |
 * | `bodyLimitBytes` | 16 384 | a route that parses a body answers 413; today no route does — every route is a GET, whose body fastify never reads (Node discards it, within `requestTimeoutMs`) |
 * | `maxHeaderBytes` | 16 384 | the header block is larger: Node answers 431 |
 *
 * The request timeout covers receiving the request only, not answering it: a live stream
 * (`/inspector/api/live`, text/event-stream) whose request has arrived stays open for as long as
 * it streams, and an analysis may take as long as it takes. Its pings (every 15 s) keep it under the
 * idle timeout. `maxRequestsPerSocket` is left unlimited: on a cap of connections and an idle
 * timeout it would bound nothing more.
 */
import type { Server } from "node:http";
import type { FastifyHttpOptions } from "fastify";
import { createError } from "@amplifier-ts/contracts";

export interface ServerLimits {
  /** Time for a request (line, headers, body) to arrive, ms. */
  requestTimeoutMs: number;
  /** Time a connection may stay silent both ways, ms. */
  idleTimeoutMs: number;
  /** Time an idle keep-alive connection is kept after its last answer, ms. */
  keepAliveTimeoutMs: number;
  /** Connections open at once. */
  maxConnections: number;
  /** Largest body a route parses, bytes. */
  bodyLimitBytes: number;
  /** Largest header block, bytes. */
  maxHeaderBytes: number;
}

export const SERVER_LIMITS_DEFAULT: Readonly<ServerLimits> = Object.freeze({
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 120_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 512,
  bodyLimitBytes: 16_384,
  maxHeaderBytes: 16_384,
});

/** Node's timers hold at most 2^31 - 1 ms; a longer figure would fire at once. */
const MAX_MS = 2_147_483_647;

/** The defaults with `given` over them; a figure that is not a whole number in range (or an unknown key) is INVALID_ARGUMENT. */
export function resolveServerLimits(given: Partial<ServerLimits> | undefined): ServerLimits {
  if (given === undefined) return { ...SERVER_LIMITS_DEFAULT };
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    throw createError("INVALID_ARGUMENT", undefined, { module: "server", path: "startServer.limits", expected: `an object with some of ${Object.keys(SERVER_LIMITS_DEFAULT).join(", ")}`, given });
  }
  const limits = { ...SERVER_LIMITS_DEFAULT };
  for (const [key, value] of Object.entries(given)) {
    if (!(key in SERVER_LIMITS_DEFAULT)) {
      throw createError("INVALID_ARGUMENT", `startServer.limits has no "${key}"`, { module: "server", path: `startServer.limits.${key}`, expected: `one of ${Object.keys(SERVER_LIMITS_DEFAULT).join(", ")}`, given: key });
    }
    if (value === undefined) continue;
    const max = key.endsWith("Ms") ? MAX_MS : Number.MAX_SAFE_INTEGER;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) {
      throw createError("INVALID_ARGUMENT", undefined, { module: "server", path: `startServer.limits.${key}`, expected: `a whole number from 1 to ${max}`, given: value });
    }
    limits[key as keyof ServerLimits] = value;
  }
  return limits;
}

/** The fastify (and Node http.Server) options that enforce `limits`; the connection cap is set on the server after creation (`applyConnectionCap`). */
export function fastifyLimitOptions(limits: ServerLimits): Pick<FastifyHttpOptions<Server>, "requestTimeout" | "connectionTimeout" | "keepAliveTimeout" | "bodyLimit" | "http"> {
  return {
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    bodyLimit: limits.bodyLimitBytes,
    http: {
      requestTimeout: limits.requestTimeoutMs,
      // A GET is all headers: the header deadline is the request's (Node wants it ≤ requestTimeout).
      headersTimeout: limits.requestTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      // Node checks deadlines on this period (default 30 s); a quarter of the timeout keeps the
      // enforcement within 25 % of the figure, at most once a second.
      connectionsCheckingInterval: Math.min(1_000, Math.max(10, Math.floor(limits.requestTimeoutMs / 4))),
    },
  };
}

/** The cap on open connections: Node drops a connection accepted beyond it. */
export function applyConnectionCap(server: { maxConnections: number }, limits: ServerLimits): void {
  server.maxConnections = limits.maxConnections;
}
