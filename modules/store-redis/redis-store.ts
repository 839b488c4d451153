import type { HistoryScope, HistoryStore, OpenedSession, ReadOptions, SessionAttachments, SessionSummary } from "@amplifier-ts/contracts";
import type { RedisRetryPolicy, RedisStoreOptions } from "./redis-store-options.js";
import type { Message } from "@amplifier-ts/contracts";
import { createError, isAmplifierError } from "@amplifier-ts/contracts";
import { decodeStoredText, encodeMessage, encodeMessages, type EncodedMessage } from "@amplifier-ts/stores";
import { acquireRedis, type RedisConnection, type RedisLease } from "./redis-clients.js";
import { agentIdOf, agentSessionKey, assertSessionId } from "@amplifier-ts/stores";
import { redisKeys, type RedisKeys } from "./redis-keys.js";
import { assertAttachmentName, assertAttachmentText, assertRunId, resolvePage } from "@amplifier-ts/stores";
import { DEFAULT_REDIS_URL, resolveRedisOptions, type RedisTarget } from "./redis-config.js";
import { APPEND, ATTACH, CLEAR_RUN, DELETE, LIST, PRUNE, REPLACE } from "./redis-scripts.js";

const MODULE = "stores/redis";

export { DEFAULT_REDIS_URL };

export type { RedisRetryPolicy, RedisStoreOptions };

/** Messages per LRANGE page when a session is read whole. */
const PAGE = 10_000;
/** Session ids per listing script (each runs ~1 ms on the server), or per pipelined batch in a cluster. */
const LIST_PAGE = 1_000;
/** Cluster listing: an index entry whose session has no keys is dropped only when its last write is older than this (a write in flight indexes before its script runs). */
const PRUNE_GRACE_MS = 60_000;

/** A write that fewer replicas than `waitForReplicas.replicas` acknowledged in time (retried, like a lost connection). */
class ReplicaAckError extends Error {
  override readonly name = "ReplicaAckError";
}

/**
 * A HistoryStore in Redis: hot, shared, fast recent turns, on
 * one server or a Redis Cluster.
 *
 * | concern | how |
 * |---|---|
 * | layout | per agent: a LIST of message JSON per session, a HASH of bytes/updatedAt per session, a sorted set of session ids; redis-keys.ts builds every name. One server: the layout from before agents and clusters (`<prefix>s:<id>`, `<prefix>m:<id>`, `<prefix>index`; another agent under `<prefix>a:<agent>:`). Cluster: a session's keys share the hash tag `{<agent>:<session>}` (one slot), the agent's index is `<prefix>{<agent>}:index` |
 * | atomicity | append, appendMany, replace, clear and clearRun are one Lua script each, on the session's keys only: all or nothing, atomic with the list's order. One server: the script also updates the index. Cluster: the index (another slot) is updated by a ZADD sent with the script, both awaited before the call resolves |
 * | call order | a per-session chain in this process: calls take effect in the order they were made, also across retries |
 * | retries | transient failures (connection lost, server restarting or loading, a cluster failing over: CLUSTERDOWN, TRYAGAIN) are retried with bounded backoff (`retry`); an append carries a write id (`SET NX`, 10 min, in the session's slot) so a retry after a lost reply never stores it twice |
 * | idempotent appends | a SET of the message ids the list holds, in the session's hash tag; the append script adds each id (SADD) and pushes only the messages whose id was new — one atomic server-side step, so a retry of a stored message, by this process or after a restart, is a no-op. The set is built once from the list when the meta hash lacks its mark (`ids`: lists written before, or after clearRun), replaced with the list by replace, shares the session's TTL; `maxMessages` removes a trimmed message's id with it. Writers of older versions do not keep the set: run one version per key prefix |
 * | unknown outcomes | a write whose try may have reached the server (the connection was lost after sending: node-redis rejects what was written and what was queued alike) has an unknown outcome; the store keeps retrying it — idempotent, so safe — until a reply says what happened or `retry.outcomeWindowMs` (default 10 s) has passed since the loss, then STORAGE_WRITE_UNCERTAIN (`details.messageIds`). STORAGE_WRITE_FAILED only when no try could have reached it (refused while offline, connection refused, an error reply): then nothing was stored |
 * | durability | `waitForReplicas: { replicas, timeoutMs }`: after each write, WAIT on the connection that wrote it until that many replicas hold it; fewer in time → retried (the write id makes the retry a no-op), then STORAGE_WRITE_UNCERTAIN (the primary holds the write; only a failover can lose it). With it, an acknowledged write survives the loss of its primary (the replica that acknowledged it is promoted); without it, Redis replicates asynchronously and a failover can drop the last writes |
 * | failures | cannot connect at open → STORAGE_UNAVAILABLE (context-persistent falls back to memory unless strict); a write still failing after the retries → STORAGE_WRITE_FAILED (nothing stored) or STORAGE_WRITE_UNCERTAIN (see above); a read → STORAGE_UNAVAILABLE |
 * | `ttlSeconds`, `maxMessages` | CACHE policies for hot state (a session's keys expire after its last write; only the newest N kept) — not retention: use a durable store (PostgreSQL) for the record, and `retention` for what is kept |
 * | attachments | a HASH per session (name → text) in the session's hash tag (redis-keys.ts); a write is one script. `ttlSeconds`: the session's keys — list, meta and attachments — share one TTL, set on all of them by every write of the session or of an attachment, so they expire together (a session never loses its attachments while its messages live, nor keeps them after). `maxMessages` trims the list only. deleteSession deletes them |
 * | listing | `listSessions` reads the agent's index (no KEYS/SCAN). One server: one script per 1,000 ids returns their counts, bytes and times, and drops ids whose keys have expired. Cluster: LLEN + HMGET per id, pipelined per primary, 1,000 ids at a time; an id whose keys are gone is dropped (compare-and-delete on its score) once its last write is a minute old |
 *
 * Without ttl and cap it passes the whole HistoryStore contract, on one server and on a cluster.
 */
export class RedisStore implements HistoryStore, SessionAttachments {
  readonly kind = "redis";
  /** The server's url, or `redis+cluster://host:port,…` for a cluster. */
  readonly url: string;
  readonly keyPrefix: string;
  /** True when the store talks to a Redis Cluster. */
  readonly cluster: boolean;
  private readonly target: RedisTarget;
  private readonly label: string;
  private readonly ttl: number;
  private readonly cap: number;
  private readonly retry: RedisRetryPolicy;
  private readonly connectTimeoutMs: number;
  private readonly waitFor: { replicas: number; timeoutMs: number } | undefined;
  private lease: Promise<RedisLease> | undefined;
  private closed = false;
  /** Per (agent, session): the last call's settlement (call order). */
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly keysByAgent = new Map<string, RedisKeys>();

  constructor(options: RedisStoreOptions = {}) {
    const resolved = resolveRedisOptions(options);
    this.target = resolved.target;
    this.label = resolved.label;
    this.cluster = resolved.target.kind === "cluster";
    this.url = resolved.target.kind === "single" ? resolved.target.url : `redis+cluster://${resolved.target.rootNodes.map((n) => n.replace(/^rediss?:\/\//, "")).join(",")}`;
    this.keyPrefix = resolved.keyPrefix;
    this.ttl = resolved.ttlSeconds;
    this.cap = resolved.maxMessages;
    this.retry = resolved.retry;
    this.connectTimeoutMs = resolved.connectTimeoutMs;
    this.waitFor = resolved.waitForReplicas;
  }

  async open(sessionId: string, scope?: HistoryScope): Promise<OpenedSession> {
    const id = assertSessionId(sessionId, MODULE);
    return { messages: await this.read(id, { agentId: agentIdOf(scope, MODULE) }) };
  }

  async append(sessionId: string, message: Message, scope?: HistoryScope): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const agent = agentIdOf(scope, MODULE);
    const encoded = encodeMessage(message, "message", MODULE);
    await this.write(agent, id, [encoded]);
  }

  async appendMany(sessionId: string, messages: Message[], scope?: HistoryScope): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const agent = agentIdOf(scope, MODULE);
    const encoded = encodeMessages(messages, "messages", MODULE);
    if (encoded.length > 0) await this.write(agent, id, encoded);
  }

  async read(sessionId: string, options?: ReadOptions): Promise<Message[]> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    resolvePage(options, Number.MAX_SAFE_INTEGER, MODULE); // validate before touching the server
    const agent = agentIdOf(options, MODULE);
    const list = this.keys(agent).list(id);
    return this.inOrder(agent, id, async () => {
      const redis = await this.connection("read");
      const length = Number(await this.attempt("read", () => redis.command(list, ["LLEN", list])));
      const { start, end } = resolvePage(options, length, MODULE);
      const out: Message[] = [];
      for (let from = start; from < end; from += PAGE) {
        const to = Math.min(end, from + PAGE) - 1;
        const page = await this.attempt("read", () => redis.command<string[]>(list, ["LRANGE", list, String(from), String(to)]));
        // Lists can be written by others (an older version, redis-cli): each record is checked on the way out.
        for (const json of page) out.push(decodeStoredText(json, id, start + out.length, MODULE));
      }
      return out;
    });
  }

  async count(sessionId: string, scope?: HistoryScope): Promise<number> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const agent = agentIdOf(scope, MODULE);
    const list = this.keys(agent).list(id);
    return this.inOrder(agent, id, async () => {
      const redis = await this.connection("read");
      return Number(await this.attempt("read", () => redis.command(list, ["LLEN", list])));
    });
  }

  async replace(sessionId: string, messages: Message[], scope?: HistoryScope): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const agent = agentIdOf(scope, MODULE);
    const keys = this.keys(agent);
    const encoded = encodeMessages(messages, "messages", MODULE);
    await this.inOrder(agent, id, async () => {
      const redis = await this.connection("write");
      const bytes = encoded.reduce((n, e) => n + Buffer.byteLength(e.json) + 1, 0);
      const sessionKeys = [keys.list(id), keys.meta(id), keys.attachments(id), keys.ids(id)];
      const scriptKeys = this.cluster ? sessionKeys : [...sessionKeys, keys.index];
      await this.attempt("write", async () => {
        await Promise.all([
          this.cluster && encoded.length > 0 ? this.indexInCluster(redis, keys, id) : undefined,
          evalScript(redis, REPLACE, scriptKeys, [id, new Date().toISOString(), String(this.ttl), String(bytes), ...encoded.flatMap((e) => [e.facts.id ?? "", e.json])]),
        ]);
        await this.replicated(redis, keys.list(id));
      });
    });
  }

  async clear(sessionId: string, scope?: HistoryScope): Promise<void> {
    await this.replace(sessionId, [], scope);
  }

  async clearRun(sessionId: string, runId: string, scope?: HistoryScope): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    assertRunId(runId, MODULE);
    const agent = agentIdOf(scope, MODULE);
    const keys = this.keys(agent);
    await this.inOrder(agent, id, async () => {
      const redis = await this.connection("write");
      await this.attempt("write", async () => {
        await evalScript(redis, CLEAR_RUN, [keys.list(id), keys.meta(id), keys.attachments(id), keys.ids(id)], [runId, new Date().toISOString(), String(this.ttl)]);
        await this.replicated(redis, keys.list(id));
      });
    });
  }

  async listSessions(scope?: HistoryScope): Promise<SessionSummary[]> {
    this.live();
    const keys = this.keys(agentIdOf(scope, MODULE));
    const redis = await this.connection("read");
    const out: SessionSummary[] = [];
    const add = (sessionId: string, count: number, bytes: unknown, updatedAt: unknown) => {
      if (count > 0) out.push({ sessionId, count, ...(bytes !== "" && bytes != null ? { bytes: Number(bytes) } : {}), ...(updatedAt !== "" && updatedAt != null ? { updatedAt: String(updatedAt) } : {}) });
    };
    if (!this.cluster) {
      const ids = await this.attempt("read", () => redis.command<string[]>(keys.index, ["ZRANGE", keys.index, "0", "-1"]));
      // One script per page of ids: count, bytes and updatedAt of each (and expired ids dropped from the index).
      for (let i = 0; i < ids.length; i += LIST_PAGE) {
        const chunk = ids.slice(i, i + LIST_PAGE);
        const names = chunk.flatMap((id) => [id, keys.list(id), keys.meta(id)]);
        const replies = (await this.attempt("read", () => evalScript(redis, LIST, [keys.index], names))) as (number | string)[];
        chunk.forEach((sessionId, k) => add(sessionId, Number(replies[3 * k]), replies[3 * k + 1], replies[3 * k + 2]));
      }
    } else {
      // The index is in one slot, each session in its own: plain commands, pipelined by node-redis per primary.
      const reply = await this.attempt("read", () => redis.command<unknown[]>(keys.index, ["ZRANGE", keys.index, "0", "-1", "WITHSCORES"]));
      // RESP3 (the cluster client's protocol) pairs each member with its score; RESP2 is flat.
      const flat = reply.flatMap((entry) => (Array.isArray(entry) ? entry : [entry])).map(String);
      const now = Date.now();
      for (let i = 0; i < flat.length; i += 2 * LIST_PAGE) {
        const chunk = flat.slice(i, i + 2 * LIST_PAGE);
        const ids = chunk.filter((_, k) => k % 2 === 0);
        const rows = await this.attempt("read", () =>
          Promise.all(
            ids.map((id) =>
              Promise.all([redis.command(keys.list(id), ["LLEN", keys.list(id)]), redis.command<(string | null)[]>(keys.meta(id), ["HMGET", keys.meta(id), "bytes", "updatedAt"])]),
            ),
          ),
        );
        for (let k = 0; k < ids.length; k++) {
          const [count, [bytes, updatedAt]] = rows[k]! as [number, (string | null)[]];
          const score = chunk[2 * k + 1]!;
          if (Number(count) === 0 && bytes == null && updatedAt == null && Number(score) < now - PRUNE_GRACE_MS) {
            // Gone (expired or deleted): out of the index unless a write re-indexed it meanwhile (its score changed).
            await this.attempt("read", () => evalScript(redis, PRUNE, [keys.index], [ids[k]!, score]));
          }
          add(ids[k]!, Number(count), bytes, updatedAt);
        }
      }
    }
    return out.sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
  }

  async deleteSession(sessionId: string, scope?: HistoryScope): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const agent = agentIdOf(scope, MODULE);
    const keys = this.keys(agent);
    await this.inOrder(agent, id, async () => {
      const redis = await this.connection("write");
      await this.attempt("write", async () => {
        const sessionKeys = [keys.list(id), keys.meta(id), keys.attachments(id), keys.ids(id)];
        await evalScript(redis, DELETE, this.cluster ? sessionKeys : [...sessionKeys, keys.index], [id]);
        if (this.cluster) await redis.command(keys.index, ["ZREM", keys.index, id]);
        await this.replicated(redis, keys.list(id));
      });
    });
  }

  async readAttachment(sessionId: string, name: string, scope?: HistoryScope): Promise<string | undefined> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const agent = agentIdOf(scope, MODULE);
    assertAttachmentName(name, MODULE);
    const key = this.keys(agent).attachments(id);
    return this.inOrder(agent, id, async () => {
      const redis = await this.connection("read");
      const text = await this.attempt("read", () => redis.command<string | null>(key, ["HGET", key, name]));
      return text ?? undefined;
    });
  }

  /** One script (HSET, and the session's TTL when `ttlSeconds` is set); idempotent, so retried like any write. */
  async writeAttachment(sessionId: string, name: string, text: string, scope?: HistoryScope): Promise<void> {
    this.live();
    const id = assertSessionId(sessionId, MODULE);
    const agent = agentIdOf(scope, MODULE);
    assertAttachmentName(name, MODULE);
    assertAttachmentText(text, MODULE);
    const keys = this.keys(agent);
    await this.inOrder(agent, id, async () => {
      const redis = await this.connection("write");
      await this.attempt("write", async () => {
        await evalScript(redis, ATTACH, [keys.attachments(id), keys.list(id), keys.meta(id), keys.ids(id)], [name, text, String(this.ttl)]);
        await this.replicated(redis, keys.attachments(id));
      });
    });
  }

  /** Nothing is held per session in Redis; validates the ids. */
  async closeSession(sessionId: string, scope?: HistoryScope): Promise<void> {
    this.live();
    assertSessionId(sessionId, MODULE);
    agentIdOf(scope, MODULE);
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

  /** One APPEND script: the messages whose ids the session does not hold, atomically (see the class table). */
  private async write(agent: string, id: string, encoded: EncodedMessage[]): Promise<void> {
    const keys = this.keys(agent);
    const writeId = keys.writeId(id);
    const messageIds = encoded.flatMap((e) => (e.facts.id === undefined ? [] : [e.facts.id]));
    await this.inOrder(agent, id, async () => {
      const redis = await this.connection("write");
      const sessionKeys = [keys.list(id), keys.meta(id), writeId, keys.attachments(id), keys.ids(id)];
      const scriptKeys = this.cluster ? sessionKeys : [...sessionKeys, keys.index];
      const args = [id, new Date().toISOString(), String(this.ttl), String(this.cap), ...encoded.flatMap((e) => [e.facts.id ?? "", e.json])];
      await this.attempt(
        "write",
        async () => {
          await Promise.all([this.cluster ? this.indexInCluster(redis, keys, id) : undefined, evalScript(redis, APPEND, scriptKeys, args)]);
          await this.replicated(redis, keys.list(id));
        },
        messageIds,
      );
    });
  }

  /** Cluster: the agent's index names the session, scored by the time of its last write (ms). */
  private indexInCluster(redis: RedisConnection, keys: RedisKeys, id: string): Promise<unknown> {
    return redis.command(keys.index, ["ZADD", keys.index, String(Date.now()), id]);
  }

  /** With `waitForReplicas`: WAIT on the connection that wrote `key`; too few acknowledgements → ReplicaAckError (retried). */
  private async replicated(redis: RedisConnection, key: string): Promise<void> {
    if (!this.waitFor) return;
    const { replicas, timeoutMs } = this.waitFor;
    const acked = await redis.waitReplicas(key, replicas, timeoutMs);
    if (acked < replicas) throw new ReplicaAckError(`the write was acknowledged by ${acked} of ${replicas} replica(s) within ${timeoutMs} ms (it may be on the primary only)`);
  }

  /** Runs `task` after every earlier call on the agent's session has settled (call order, retries included). */
  private inOrder<T>(agent: string, sessionId: string, task: () => Promise<T>): Promise<T> {
    const id = agentSessionKey(agent, sessionId);
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

  private async connection(kind: "read" | "write"): Promise<RedisConnection> {
    // No live() check: calls made before close() still finish (close waits for them).
    this.lease ??= acquireRedis(this.target, this.connectTimeoutMs);
    try {
      return (await this.lease).connection;
    } catch (cause) {
      this.lease = undefined;
      throw createError("STORAGE_UNAVAILABLE", `${this.label} cannot be reached: ${(cause as Error)?.message ?? String(cause)}`, {
        module: MODULE,
        expected: this.cluster ? "a reachable Redis Cluster (one of its root nodes answering)" : "a reachable Redis server",
        hint: kind === "write" ? "start Redis, or use a store that is up (context-persistent falls back to memory at mount unless strict)" : "start Redis",
        cause,
      });
    }
  }

  /**
   * One command with bounded retries on transient failures. A write whose try may have reached the
   * server (`mayHaveReachedServer`) has an unknown outcome: it is retried — every write script is
   * idempotent — until a reply settles it or `outcomeWindowMs` has passed since the first such try,
   * even when the `attempts` are used up; then STORAGE_WRITE_UNCERTAIN. Otherwise a write that
   * still fails is STORAGE_WRITE_FAILED: no try reached the server, nothing was stored.
   */
  private async attempt<T>(kind: "read" | "write", command: () => Promise<T>, messageIds: string[] = []): Promise<T> {
    let delay = this.retry.baseDelayMs;
    let reachedAt: number | undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        return await command();
      } catch (error) {
        if (isAmplifierError(error)) throw error;
        if (kind === "write" && mayHaveReachedServer(error)) reachedAt ??= Date.now();
        const resolving = reachedAt !== undefined && Date.now() - reachedAt < this.retry.outcomeWindowMs;
        if (!isTransient(error) || (attempt >= this.retry.attempts && !resolving)) {
          const tries = `(after ${attempt} ${attempt === 1 ? "try" : "tries"})`;
          const message = (error as Error)?.message ?? String(error);
          if (reachedAt !== undefined) {
            throw createError("STORAGE_WRITE_UNCERTAIN", `${this.label}: ${message} ${tries}; a try may have been applied before its reply was lost`, {
              module: MODULE,
              hint:
                error instanceof ReplicaAckError
                  ? "the primary holds the write but too few replicas acknowledged it (a failover may lose it): check the replicas (INFO replication) or lower store.waitForReplicas; a retry is safe (appends are idempotent by message id)"
                  : "the write may be stored: retry it (appends are idempotent by message id, so a retry of a stored message is a no-op); raise store.retry.outcomeWindowMs to wait longer for the server",
              cause: error,
              messageIds,
            });
          }
          const code = kind === "write" ? "STORAGE_WRITE_FAILED" : "STORAGE_UNAVAILABLE";
          throw createError(code, `${this.label}: ${message} ${tries}`, {
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

  /** The agent's key names (redis-keys.ts), made once per agent. */
  private keys(agent: string): RedisKeys {
    let keys = this.keysByAgent.get(agent);
    if (!keys) {
      keys = redisKeys(this.keyPrefix, agent, this.cluster);
      this.keysByAgent.set(agent, keys);
    }
    return keys;
  }
}

/** EVAL with its keys (routed by the first: every key of a script is in one slot in a cluster). */
function evalScript(redis: RedisConnection, script: string, keys: string[], args: string[]): Promise<unknown> {
  return redis.command(keys[0]!, ["EVAL", script, String(keys.length), ...keys, ...args]);
}

/**
 * Could a try that failed with `error` have been applied by the server? No for a command the
 * client refused to send (ClientOfflineError / ClientClosedError: `disableOfflineQueue`), a
 * connection that never opened (refused, unreachable, connect timeout) and an error reply (the
 * server answered: our scripts fail before they write). Yes for a lost connection — node-redis
 * rejects the commands it had written and the ones still queued with the same error, so it cannot
 * tell them apart — for a reply missing replica acknowledgements (applied on the primary), and for
 * anything unknown.
 */
export function mayHaveReachedServer(error: unknown): boolean {
  const e = error as { name?: string; code?: string; message?: string } | null;
  if (!e) return true;
  // node-redis's error classes leave `name` as "Error": their constructor names them.
  const kind = (error as object).constructor?.name ?? e.name ?? "";
  if (["ClientOfflineError", "ClientClosedError", "ConnectionTimeoutError", "ReconnectStrategyError", "ErrorReply", "SimpleError", "BlobError"].includes(kind)) return false;
  if (/^(The client is offline|The client is closed|Connection timeout)$/.test(e.message ?? "")) return false;
  if (["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"].includes(e.code ?? "")) return false;
  return !/^(LOADING|BUSY|TRYAGAIN|MASTERDOWN|CLUSTERDOWN|READONLY|NOSCRIPT|OOM|ERR|WRONGTYPE|NOPERM|NOAUTH)\b/.test(e.message ?? "");
}

/** Errors worth another try: the connection (lost, refused, closed while offline), a server that is starting, a cluster failing over, too few replica acknowledgements. */
export function isTransient(error: unknown): boolean {
  const e = error as { name?: string; code?: string; message?: string } | null;
  if (!e) return false;
  if (["ClientClosedError", "ClientOfflineError", "SocketClosedUnexpectedlyError", "ConnectionTimeoutError", "ReconnectStrategyError", "ReplicaAckError"].includes(e.name ?? "")) return true;
  if (["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH"].includes(e.code ?? "")) return true;
  return /^(LOADING|BUSY|TRYAGAIN|MASTERDOWN|CLUSTERDOWN|READONLY)\b/.test(e.message ?? "") || /The client is closed|offline|Socket closed unexpectedly/i.test(e.message ?? "");
}
