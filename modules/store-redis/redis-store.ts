import { randomUUID } from "node:crypto";
import type { RedisClientType } from "redis";
import type { HistoryStore, OpenedSession, ReadOptions, RedisRetryPolicy, RedisStoreOptions, SessionSummary } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { createError, isAmplifierError } from "@amplifier-ts/contracts";
import { decodeStoredText, encodeMessage, encodeMessages, type EncodedMessage } from "@amplifier-ts/stores";
import { acquireRedis, type RedisLease } from "./redis-clients.js";
import { assertSessionId } from "@amplifier-ts/stores";
import { assertRunId, resolvePage } from "@amplifier-ts/stores";

const MODULE = "stores/redis";

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

export type { RedisRetryPolicy, RedisStoreOptions };

const DEFAULT_RETRY: RedisRetryPolicy = { attempts: 6, baseDelayMs: 25, maxDelayMs: 1_000 };
/** Messages per LRANGE page when a session is read whole. */
const PAGE = 10_000;
/** Session ids per listing script (each runs ~1 ms on the server). */
const LIST_PAGE = 1_000;

/**
 * A HistoryStore in Redis: hot, shared, fast recent turns (the seeds' Redis HistoryProvider).
 *
 * | concern | how |
 * |---|---|
 * | layout | a LIST of message JSON per session (`<prefix>s:<id>`), a HASH of bytes/updatedAt (`<prefix>m:<id>`), a sorted set of session ids (`<prefix>index`, lexicographic) |
 * | atomicity | append, appendMany, replace, clear and clearRun are one Lua script each: all or nothing, atomic with the list's order |
 * | call order | a per-session chain in this process: calls take effect in the order they were made, also across retries |
 * | retries | transient failures (connection lost, server restarting or loading) are retried with bounded backoff (`retry`); an append carries a write id (`SET NX`, 10 min) so a retry after a lost reply never stores it twice |
 * | failures | cannot connect at open → STORAGE_UNAVAILABLE (context-persistent falls back to memory unless strict); a write still failing after the retries → STORAGE_WRITE_FAILED; a read → STORAGE_UNAVAILABLE |
 * | `ttlSeconds`, `maxMessages` | CACHE policies for hot state (a session's keys expire after its last write; only the newest N kept) — not retention: use a durable store (PostgreSQL) for the record, and `retention` for what is kept |
 * | listing | `listSessions` reads the index (no KEYS/SCAN), then one script per 1,000 ids returns their counts, bytes and times; ids whose keys have expired are removed from the index as they are met. The scripts build key names from the prefix: a single Redis server (or replicated primary), not Redis Cluster |
 *
 * Without ttl and cap it passes the whole HistoryStore contract.
 */
export class RedisStore implements HistoryStore {
  readonly kind = "redis";
  readonly url: string;
  readonly keyPrefix: string;
  private readonly ttl: number;
  private readonly cap: number;
  private readonly retry: RedisRetryPolicy;
  private readonly connectTimeoutMs: number;
  private lease: Promise<RedisLease> | undefined;
  private closed = false;
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(options: RedisStoreOptions = {}) {
    this.url = checkUrl(options.url ?? process.env.AMPLIFIER_REDIS_URL ?? DEFAULT_REDIS_URL);
    this.keyPrefix = checkString(options.keyPrefix ?? "amplifier:", "keyPrefix");
    this.ttl = checkWhole(options.ttlSeconds, "ttlSeconds") ?? 0;
    this.cap = checkWhole(options.maxMessages, "maxMessages") ?? 0;
    this.retry = { ...DEFAULT_RETRY, ...checkRetry(options.retry) };
    this.connectTimeoutMs = checkWhole(options.connectTimeoutMs, "connectTimeoutMs") ?? 2_000;
  }

  async open(sessionId: string): Promise<OpenedSession> {
    const id = assertSessionId(sessionId, MODULE);
    return { messages: await this.read(id) };
  }

  async append(sessionId: string, message: Message): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const encoded = encodeMessage(message, "message", MODULE);
    await this.write(id, [encoded]);
  }

  async appendMany(sessionId: string, messages: Message[]): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const encoded = encodeMessages(messages, "messages", MODULE);
    if (encoded.length > 0) await this.write(id, encoded);
  }

  async read(sessionId: string, options?: ReadOptions): Promise<Message[]> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    resolvePage(options, Number.MAX_SAFE_INTEGER, MODULE); // validate before touching the server
    return this.inOrder(id, async () => {
      const client = await this.client("read");
      const length = await this.attempt("read", () => client.lLen(this.listKey(id)));
      const { start, end } = resolvePage(options, length, MODULE);
      const out: Message[] = [];
      for (let from = start; from < end; from += PAGE) {
        const to = Math.min(end, from + PAGE) - 1;
        const page = await this.attempt("read", () => client.lRange(this.listKey(id), from, to));
        // Lists can be written by others (an older version, redis-cli): each record is checked on the way out.
        for (const json of page) out.push(decodeStoredText(json, id, start + out.length, MODULE));
      }
      return out;
    });
  }

  async count(sessionId: string): Promise<number> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    return this.inOrder(id, async () => {
      const client = await this.client("read");
      return this.attempt("read", () => client.lLen(this.listKey(id)));
    });
  }

  async replace(sessionId: string, messages: Message[]): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const encoded = encodeMessages(messages, "messages", MODULE);
    await this.inOrder(id, async () => {
      const client = await this.client("write");
      const bytes = encoded.reduce((n, e) => n + Buffer.byteLength(e.json) + 1, 0);
      await this.attempt("write", () =>
        client.eval(REPLACE, { keys: [this.listKey(id), this.metaKey(id), this.indexKey()], arguments: [id, new Date().toISOString(), String(this.ttl), String(bytes), ...encoded.map((e) => e.json)] }),
      );
    });
  }

  async clear(sessionId: string): Promise<void> {
    await this.replace(sessionId, []);
  }

  async clearRun(sessionId: string, runId: string): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    assertRunId(runId, MODULE);
    await this.inOrder(id, async () => {
      const client = await this.client("write");
      await this.attempt("write", () => client.eval(CLEAR_RUN, { keys: [this.listKey(id), this.metaKey(id)], arguments: [runId, new Date().toISOString(), String(this.ttl)] }));
    });
  }

  async listSessions(): Promise<SessionSummary[]> {
    this.live();
    const client = await this.client("read");
    const ids = await this.attempt("read", () => client.zRange(this.indexKey(), 0, -1));
    const out: SessionSummary[] = [];
    // One script per page of ids: count, bytes and updatedAt of each (and expired ids dropped from the index).
    for (let i = 0; i < ids.length; i += LIST_PAGE) {
      const chunk = ids.slice(i, i + LIST_PAGE);
      const replies = (await this.attempt("read", () => client.eval(LIST, { keys: [this.indexKey()], arguments: [this.keyPrefix, ...chunk] }))) as (number | string)[];
      chunk.forEach((sessionId, k) => {
        const count = Number(replies[3 * k]);
        const bytes = replies[3 * k + 1];
        const updatedAt = replies[3 * k + 2];
        if (count > 0) out.push({ sessionId, count, ...(bytes !== "" ? { bytes: Number(bytes) } : {}), ...(updatedAt !== "" ? { updatedAt: String(updatedAt) } : {}) });
      });
    }
    return out.sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
  }

  async deleteSession(sessionId: string): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    await this.inOrder(id, async () => {
      const client = await this.client("write");
      await this.attempt("write", () => client.multi().del([this.listKey(id), this.metaKey(id)]).zRem(this.indexKey(), id).exec());
    });
  }

  /** Nothing is held per session in Redis; validates the id. */
  async closeSession(sessionId: string): Promise<void> {
    this.live();
    assertSessionId(sessionId, MODULE);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.chains.values()]);
    const lease = this.lease;
    this.lease = undefined;
    if (lease) await lease.then((l) => l.release(), () => undefined);
  }

  // --- internals ---------------------------------------------------------------------------------

  private async write(id: string, encoded: EncodedMessage[]): Promise<void> {
    const bytes = encoded.reduce((n, e) => n + Buffer.byteLength(e.json) + 1, 0);
    const writeId = `${this.keyPrefix}w:${randomUUID()}`;
    await this.inOrder(id, async () => {
      const client = await this.client("write");
      await this.attempt("write", () =>
        client.eval(APPEND, {
          keys: [this.listKey(id), this.metaKey(id), this.indexKey(), writeId],
          arguments: [id, new Date().toISOString(), String(this.ttl), String(this.cap), String(bytes), ...encoded.map((e) => e.json)],
        }),
      );
    });
  }

  /** Runs `task` after every earlier call on the session has settled (call order, retries included). */
  private inOrder<T>(id: string, task: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(id) ?? Promise.resolve();
    const run = previous.then(task, task);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(id, settled);
    void settled.then(() => {
      if (this.chains.get(id) === settled) this.chains.delete(id);
    });
    return run;
  }

  private async client(kind: "read" | "write"): Promise<RedisClientType> {
    // No live() check: calls made before close() still finish (close waits for them).
    this.lease ??= acquireRedis(this.url, this.connectTimeoutMs);
    try {
      return (await this.lease).client;
    } catch (cause) {
      this.lease = undefined;
      throw createError("STORAGE_UNAVAILABLE", `Redis at ${redact(this.url)} cannot be reached: ${(cause as Error)?.message ?? String(cause)}`, {
        module: MODULE,
        expected: "a reachable Redis server",
        hint: kind === "write" ? "start Redis, or use a store that is up (context-persistent falls back to memory at mount unless strict)" : "start Redis",
        cause,
      });
    }
  }

  /** One command with bounded retries on transient failures. */
  private async attempt<T>(kind: "read" | "write", command: () => Promise<T>): Promise<T> {
    let delay = this.retry.baseDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await command();
      } catch (error) {
        if (isAmplifierError(error)) throw error;
        if (!isTransient(error) || attempt >= this.retry.attempts) {
          const code = kind === "write" ? "STORAGE_WRITE_FAILED" : "STORAGE_UNAVAILABLE";
          throw createError(code, `Redis at ${redact(this.url)}: ${(error as Error)?.message ?? String(error)} (after ${attempt} ${attempt === 1 ? "try" : "tries"})`, {
            module: MODULE,
            hint: isTransient(error) ? `the server did not come back within ${this.retry.attempts} tries; raise store.retry.attempts or check the server` : undefined,
            cause: error,
          });
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(this.retry.maxDelayMs, delay * 2);
      }
    }
  }

  private live(): void {
    if (this.closed) throw createError("STORE_CLOSED", undefined, { module: MODULE });
  }

  private listKey(id: string): string {
    return `${this.keyPrefix}s:${id}`;
  }
  private metaKey(id: string): string {
    return `${this.keyPrefix}m:${id}`;
  }
  private indexKey(): string {
    return `${this.keyPrefix}index`;
  }
}

/** Errors worth another try: the connection (lost, refused, closed while offline) or a server that is starting. */
export function isTransient(error: unknown): boolean {
  const e = error as { name?: string; code?: string; message?: string } | null;
  if (!e) return false;
  if (["ClientClosedError", "ClientOfflineError", "SocketClosedUnexpectedlyError", "ConnectionTimeoutError", "ReconnectStrategyError"].includes(e.name ?? "")) return true;
  if (["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH"].includes(e.code ?? "")) return true;
  return /^(LOADING|BUSY|TRYAGAIN|MASTERDOWN)\b/.test(e.message ?? "") || /The client is closed|offline|Socket closed unexpectedly/i.test(e.message ?? "");
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return url;
  }
}

function checkUrl(url: unknown): string {
  if (typeof url === "string" && /^rediss?:\/\//.test(url)) {
    try {
      new URL(url);
      return url;
    } catch {
      // fall through
    }
  }
  throw createError("INVALID_ARGUMENT", "store.url must be a redis:// URL", { module: MODULE, path: "store.url", expected: "redis://host:port[/db] or rediss://…", given: url });
}

function checkString(value: unknown, name: string): string {
  if (typeof value === "string" && value.length > 0 && value.length <= 200) return value;
  throw createError("INVALID_ARGUMENT", `store.${name} must be a non-empty string`, { module: MODULE, path: `store.${name}`, expected: "a non-empty string (≤ 200 chars)", given: value });
}

function checkWhole(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value;
  throw createError("INVALID_ARGUMENT", `store.${name} must be a whole number > 0`, { module: MODULE, path: `store.${name}`, expected: "an integer > 0", given: value });
}

function checkRetry(retry: unknown): Partial<RedisRetryPolicy> {
  if (retry === undefined) return {};
  if (typeof retry !== "object" || retry === null || Array.isArray(retry)) {
    throw createError("INVALID_ARGUMENT", "store.retry must be an object", { module: MODULE, path: "store.retry", expected: "{ attempts?, baseDelayMs?, maxDelayMs? }", given: retry });
  }
  const out: Partial<RedisRetryPolicy> = {};
  for (const [key, value] of Object.entries(retry)) {
    if (key !== "attempts" && key !== "baseDelayMs" && key !== "maxDelayMs") {
      throw createError("INVALID_ARGUMENT", `unknown option store.retry.${key}`, { module: MODULE, path: `store.retry.${key}`, expected: "attempts, baseDelayMs or maxDelayMs", given: value });
    }
    out[key] = checkWhole(value, `retry.${key}`);
  }
  return out;
}

/**
 * KEYS: list, meta, index, write id. ARGV: session id, now, ttl, cap, bytes, json…
 * Returns the number of messages appended, or -1 when this write id was already applied.
 */
const APPEND = `
if redis.call('SET', KEYS[4], '1', 'NX', 'EX', 600) == false then return -1 end
for i = 6, #ARGV, 1000 do
  redis.call('RPUSH', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('HINCRBY', KEYS[2], 'bytes', tonumber(ARGV[5]))
redis.call('HSET', KEYS[2], 'updatedAt', ARGV[2])
redis.call('ZADD', KEYS[3], 0, ARGV[1])
local cap = tonumber(ARGV[4])
if cap > 0 then
  local len = redis.call('LLEN', KEYS[1])
  if len > cap then
    local dropped = redis.call('LRANGE', KEYS[1], 0, len - cap - 1)
    local b = 0
    for _, v in ipairs(dropped) do b = b + #v + 1 end
    redis.call('LTRIM', KEYS[1], len - cap, -1)
    redis.call('HINCRBY', KEYS[2], 'bytes', -b)
  end
end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
end
return #ARGV - 5
`;

/** KEYS: list, meta, index. ARGV: session id, now, ttl, bytes, json… (none: the session is emptied). */
const REPLACE = `
redis.call('DEL', KEYS[1])
for i = 5, #ARGV, 1000 do
  redis.call('RPUSH', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('HSET', KEYS[2], 'bytes', tonumber(ARGV[4]), 'updatedAt', ARGV[2])
if #ARGV >= 5 then redis.call('ZADD', KEYS[3], 0, ARGV[1]) end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  if #ARGV >= 5 then redis.call('EXPIRE', KEYS[1], ttl) end
  redis.call('EXPIRE', KEYS[2], ttl)
end
return #ARGV - 4
`;

/** KEYS: list, meta. ARGV: run id, now, ttl. Drops the messages whose metadata.runId is the run id, keeping the others' order. */
const CLEAR_RUN = `
local all = redis.call('LRANGE', KEYS[1], 0, -1)
local kept = {}
local bytes = 0
local removed = 0
for _, v in ipairs(all) do
  local rid = nil
  if string.find(v, '"runId"', 1, true) then
    local ok, m = pcall(cjson.decode, v)
    if ok and type(m) == 'table' and type(m.metadata) == 'table' then rid = m.metadata.runId end
  end
  if rid == ARGV[1] then removed = removed + 1 else kept[#kept + 1] = v; bytes = bytes + #v + 1 end
end
if removed == 0 then return 0 end
redis.call('DEL', KEYS[1])
for i = 1, #kept, 1000 do
  redis.call('RPUSH', KEYS[1], unpack(kept, i, math.min(i + 999, #kept)))
end
redis.call('HSET', KEYS[2], 'bytes', bytes, 'updatedAt', ARGV[2])
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  if #kept > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
  redis.call('EXPIRE', KEYS[2], ttl)
end
return removed
`;

/**
 * KEYS: index. ARGV: key prefix, session ids. Returns count, bytes, updatedAt per id ('' when
 * absent); an id whose list and meta keys are both gone (expired) is removed from the index.
 */
const LIST = `
local out = {}
for i = 2, #ARGV do
  local list = ARGV[1] .. 's:' .. ARGV[i]
  local meta = ARGV[1] .. 'm:' .. ARGV[i]
  local n = redis.call('LLEN', list)
  local m = redis.call('HMGET', meta, 'bytes', 'updatedAt')
  if n == 0 and m[1] == false and m[2] == false then redis.call('ZREM', KEYS[1], ARGV[i]) end
  out[#out + 1] = n
  out[#out + 1] = m[1] or ''
  out[#out + 1] = m[2] or ''
end
return out
`;
