/**
 * The Redis store's options, checked with one zod schema, and where the store connects: one
 * server (`redis://…`, `rediss://…`) or a Redis Cluster (`cluster: { rootNodes }`, or a
 * `redis+cluster://host:port,host:port` url — `rediss+cluster://` for TLS). Bad options →
 * INVALID_ARGUMENT whose `path` names the option (`store.url`, `store.cluster.rootNodes.1`, …).
 */
import { z } from "zod";
import { createError } from "@amplifier-ts/contracts";
import type { RedisRetryPolicy, RedisStoreOptions } from "./redis-store-options.js";

const MODULE = "stores/redis";

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** Where the store connects. */
export type RedisTarget =
  | { readonly kind: "single"; readonly url: string }
  | {
      readonly kind: "cluster";
      /** `redis://host:port` (or rediss://) per root node, without credentials (they go to `defaults`). */
      readonly rootNodes: readonly string[];
      readonly username?: string;
      readonly password?: string;
      readonly tls: boolean;
    };

export interface ResolvedRedisOptions {
  target: RedisTarget;
  /** What error messages show: the url or the nodes, password masked. */
  label: string;
  keyPrefix: string;
  ttlSeconds: number;
  maxMessages: number;
  retry: RedisRetryPolicy;
  connectTimeoutMs: number;
  waitForReplicas: { replicas: number; timeoutMs: number } | undefined;
}

const DEFAULT_RETRY: RedisRetryPolicy = { attempts: 6, baseDelayMs: 25, maxDelayMs: 1_000, outcomeWindowMs: 10_000 };
const whole = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const singleUrl = z.string().regex(/^rediss?:\/\/[^,]+$/, "a redis:// or rediss:// URL");

/** The store's options (the keys of RedisStoreOptions). */
export const redisStoreOptionsSchema = z.strictObject({
  url: z.string().optional().meta({ description: "redis://host:port[/db], rediss://…, or redis+cluster://host:port,host:port (a cluster). Default AMPLIFIER_REDIS_URL, else redis://127.0.0.1:6379." }),
  cluster: z
    .strictObject({
      rootNodes: z.array(singleUrl).min(1).max(64).meta({ description: "redis://host:port of one or more cluster nodes; the client discovers the rest" }),
    })
    .optional(),
  keyPrefix: z.string().min(1).max(200).optional(),
  ttlSeconds: whole.optional(),
  maxMessages: whole.optional(),
  retry: z.strictObject({ attempts: whole.optional(), baseDelayMs: whole.optional(), maxDelayMs: whole.optional(), outcomeWindowMs: whole.optional() }).optional(),
  connectTimeoutMs: whole.optional(),
  waitForReplicas: z
    .strictObject({
      replicas: whole.max(16),
      timeoutMs: whole.max(600_000).optional(),
    })
    .optional(),
});

function invalid(path: string, message: string, expected: string, given: unknown): never {
  throw createError("INVALID_ARGUMENT", message, { module: MODULE, path, expected, given });
}

const EXPECTED: Record<string, string> = {
  url: "redis://host:port[/db], rediss://…, or redis+cluster://host:port[,host:port…]",
  cluster: "{ rootNodes: [\"redis://host:port\", …] }",
  keyPrefix: "a non-empty string (≤ 200 chars)",
  ttlSeconds: "an integer > 0",
  maxMessages: "an integer > 0",
  retry: "{ attempts?, baseDelayMs?, maxDelayMs?, outcomeWindowMs? } (integers > 0)",
  connectTimeoutMs: "an integer > 0",
  waitForReplicas: "{ replicas: 1..16, timeoutMs?: integer > 0 (default 1000) }",
};

/** Checks the options (zod) and resolves defaults and the target. */
export function resolveRedisOptions(options: RedisStoreOptions = {}): ResolvedRedisOptions {
  const parsed = redisStoreOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
    const path = ["store", ...issue.path.map(String), ...(keys.length ? [keys[0]!] : [])].join(".");
    const top = String(issue.path[0] ?? keys[0] ?? "");
    const given = issue.path.reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[k as PropertyKey] : undefined), options);
    if (keys.length) invalid(path, `unknown option ${path}`, top in EXPECTED && issue.path.length > 0 ? EXPECTED[top]! : `one of ${Object.keys(EXPECTED).join(", ")}`, keys[0]);
    invalid(path, `${path}: ${issue.message}`, EXPECTED[top] ?? issue.message, given);
  }
  const o = parsed.data;
  if (o.url !== undefined && o.cluster !== undefined) {
    invalid("store.cluster", "store.url and store.cluster are exclusive", "either url (one server, or redis+cluster://…) or cluster.rootNodes", { url: o.url, cluster: o.cluster });
  }
  const target: RedisTarget = o.cluster ? clusterFromNodes(o.cluster.rootNodes) : parseRedisUrl(o.url ?? process.env.AMPLIFIER_REDIS_URL ?? DEFAULT_REDIS_URL, o.url === undefined ? "AMPLIFIER_REDIS_URL" : "store.url");
  if (target.kind === "cluster" && o.keyPrefix !== undefined && /[{}]/.test(o.keyPrefix)) {
    invalid("store.keyPrefix", "store.keyPrefix cannot hold { or } on a Redis Cluster", "a prefix without braces (the store puts each session's hash tag {agent:session} after it)", o.keyPrefix);
  }
  const retry = { ...DEFAULT_RETRY, ...Object.fromEntries(Object.entries(o.retry ?? {}).filter(([, v]) => v !== undefined)) } as RedisRetryPolicy;
  return {
    target,
    label: targetLabel(target),
    keyPrefix: o.keyPrefix ?? "amplifier:",
    ttlSeconds: o.ttlSeconds ?? 0,
    maxMessages: o.maxMessages ?? 0,
    retry,
    connectTimeoutMs: o.connectTimeoutMs ?? 2_000,
    waitForReplicas: o.waitForReplicas ? { replicas: o.waitForReplicas.replicas, timeoutMs: o.waitForReplicas.timeoutMs ?? 1_000 } : undefined,
  };
}

/** `redis://…` → one server; `redis+cluster://[user:pass@]h:p,h:p` → a cluster. */
export function parseRedisUrl(text: string, path = "store.url"): RedisTarget {
  const cluster = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/.exec(text);
  if (cluster) {
    const [, scheme, credentials, hosts] = cluster;
    const [username, password] = credentials === undefined ? [] : splitCredentials(credentials);
    const rootNodes = hosts!.split(",").map((hostPort) => {
      if (!/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(hostPort)) invalid(path, `${path}: "${hostPort}" is not host:port`, EXPECTED.url!, text);
      return `${scheme}://${hostPort}`;
    });
    return { kind: "cluster", rootNodes, ...(username ? { username } : {}), ...(password ? { password } : {}), tls: scheme === "rediss" };
  }
  if (/^rediss?:\/\/[^,]*$/.test(text)) {
    try {
      new URL(text);
      return { kind: "single", url: text };
    } catch {
      // fall through
    }
  }
  return invalid(path, `${path} must be a redis:// URL or redis+cluster://host:port,…`, EXPECTED.url!, text);
}

function clusterFromNodes(rootNodes: readonly string[]): RedisTarget {
  let username: string | undefined;
  let password: string | undefined;
  const nodes = rootNodes.map((text, i) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return invalid(`store.cluster.rootNodes.${i}`, `store.cluster.rootNodes.${i} is not a URL`, "redis://host:port", text);
    }
    if (url.username) username = decodeURIComponent(url.username);
    if (url.password) password = decodeURIComponent(url.password);
    return `${url.protocol}//${url.host}`;
  });
  return { kind: "cluster", rootNodes: nodes, ...(username ? { username } : {}), ...(password ? { password } : {}), tls: nodes.some((n) => n.startsWith("rediss:")) };
}

function splitCredentials(credentials: string): [string | undefined, string | undefined] {
  const colon = credentials.indexOf(":");
  const user = colon < 0 ? credentials : credentials.slice(0, colon);
  const pass = colon < 0 ? undefined : credentials.slice(colon + 1);
  return [user ? decodeURIComponent(user) : undefined, pass ? decodeURIComponent(pass) : undefined];
}

/** The target for messages, password masked. */
export function targetLabel(target: RedisTarget): string {
  if (target.kind === "cluster") return `the Redis Cluster at ${target.rootNodes.map((n) => n.replace(/^rediss?:\/\//, "")).join(",")}`;
  try {
    const u = new URL(target.url);
    if (u.password) u.password = "***";
    return `Redis at ${u.toString()}`;
  } catch {
    return `Redis at ${target.url}`;
  }
}

/** A stable key for sharing one client per target (credentials included: different users, different clients). */
export function targetKey(target: RedisTarget): string {
  return JSON.stringify(target);
}
