import type { RedisClientType, RedisClusterType } from "redis";
import { createError, isAmplifierError, MemoryEvent as MemoryEventJson, type MemoryEvent, type MemorySession, type RecentMemoryEvent } from "@amplifier-ts/contracts";
import { MemoryBase, sessionsToEvict, type NewMemorySession } from "@amplifier-ts/memory-base";
import { memoryRedisConfigSchema, type MemoryRedisOptions } from "./memory-redis-config.js";
import { ADD_EVENT, CLEANUP, CREATE_SESSION, DELETE_SESSION, LIST_SESSIONS, RECENT_EVENTS, STATS } from "./redis-scripts.js";

const MODULE = "memory-redis";
export const DEFAULT_MEMORY_REDIS_URL = "redis://127.0.0.1:6379";

/**
 * Memory in Redis: every process on the same url and key prefix sees one memory (replicas of an
 * agent share it), with the limits of memory-local. Each write is one Lua script
 * (redis-scripts.ts), atomic on the server: an event is appended and the list trimmed to
 * maxEventsPerSession in one step; creating a session past maxSessions evicts the oldest 10 % in
 * the same step; getRecentEvents reads a sorted set of the kept events, newest first. Cannot reach the server: reads STORAGE_UNAVAILABLE, writes STORAGE_WRITE_FAILED.
 * A `redis+cluster://host:port,…` url runs it on a Redis Cluster, every key under the hash tag
 * `{<keyPrefix>}` (one slot: see redis-scripts.ts).
 */
export class RedisMemory extends MemoryBase<MemoryRedisOptions> {
  readonly kind = "redis";
  readonly url: string;
  readonly keyPrefix: string;
  /** The prefix of every key: keyPrefix, or `{keyPrefix}` on a Redis Cluster (one hash tag, one slot). */
  private readonly prefix: string;
  /** A Redis Cluster's root nodes (`redis+cluster://` url), else undefined. */
  private readonly rootNodes: string[] | undefined;
  private readonly connectTimeoutMs: number;
  private client: Promise<RedisClientType> | undefined;

  constructor(options: MemoryRedisOptions = {}) {
    super(MODULE, memoryRedisConfigSchema, options);
    this.url = this.options.url ?? process.env.AMPLIFIER_REDIS_URL ?? DEFAULT_MEMORY_REDIS_URL;
    const path = this.options.url === undefined ? "AMPLIFIER_REDIS_URL" : "url";
    this.rootNodes = clusterNodes(this.url, path);
    if (this.rootNodes === undefined && !/^rediss?:\/\//.test(this.url)) throw createError("INVALID_ARGUMENT", undefined, { module: MODULE, path, expected: "redis://host:port or redis+cluster://host:port,…", given: this.url });
    this.keyPrefix = this.options.keyPrefix ?? "amplifier:memory:";
    if (this.rootNodes !== undefined && /[{}]/.test(this.keyPrefix)) {
      throw createError("INVALID_ARGUMENT", "keyPrefix cannot hold { or } on a Redis Cluster", { module: MODULE, path: "keyPrefix", expected: "a prefix without braces (the memory wraps it in a hash tag)", given: this.keyPrefix });
    }
    // On a cluster every key of the memory carries one hash tag — the prefix — so each script's keys share a slot.
    this.prefix = this.rootNodes === undefined ? this.keyPrefix : `{${this.keyPrefix}}`;
    this.connectTimeoutMs = this.options.connectTimeoutMs ?? 2_000;
  }

  /** One script: evicts the oldest past maxSessions and creates, or answers 0 when the id is taken. */
  protected async insertSession({ appName, userId, sessionId }: NewMemorySession): Promise<boolean> {
    return (await this.script("write", CREATE_SESSION, [sessionId, appName, userId, String(Date.now()), String(this.maxSessions), String(sessionsToEvict(this.maxSessions))])) === 1;
  }

  protected async readSession(id: string): Promise<MemorySession | undefined> {
    const hash = await this.run("read", (c) => c.hGetAll(`${this.prefix}s:${id}`));
    if (hash.appName === undefined) return undefined;
    return {
      sessionId: id,
      appName: hash.appName,
      userId: hash.userId ?? "",
      createdAt: new Date(Number(hash.createdAt)),
      updatedAt: new Date(Number(hash.updatedAt)),
      events: await this.readEvents(id, undefined),
    };
  }

  protected async readSessionIds(userId: string | undefined): Promise<string[]> {
    return (await this.script("read", LIST_SESSIONS, [userId ?? ""])) as string[];
  }

  protected async removeSession(id: string): Promise<boolean> {
    return (await this.script("write", DELETE_SESSION, [id])) === 1;
  }

  protected async appendEvent(id: string, event: MemoryEvent): Promise<boolean> {
    const json = JSON.stringify(MemoryEventJson.toJSON(event));
    return (await this.script("write", ADD_EVENT, [id, json, String(this.maxEventsPerSession), String(Date.now())])) === 1;
  }

  /** The whole list, each record checked on the way out (lists can be written by others: another version, redis-cli). */
  protected async readEvents(id: string, types: ReadonlySet<string> | undefined): Promise<MemoryEvent[]> {
    const list = await this.run("read", (c) => c.lRange(`${this.prefix}e:${id}`, 0, -1));
    const events = list.map((json) => MemoryEventJson.fromJSON(JSON.parse(json)));
    return types === undefined ? events : events.filter((e) => types.has(e.eventType));
  }

  protected async removeSessionsChangedBefore(cutoff: Date): Promise<number> {
    return (await this.script("write", CLEANUP, [String(cutoff.getTime())])) as number;
  }

  protected async countSessionsAndEvents(): Promise<{ sessions: number; events: number }> {
    const [sessions, events] = (await this.script("read", STATS, [])) as [number, number];
    return { sessions, events };
  }

  /** The sorted set of kept events (redis-scripts.ts RECENT_EVENTS), walked from the top. */
  protected override async readRecentEvents(limit: number, types: ReadonlySet<string> | undefined): Promise<RecentMemoryEvent[]> {
    const flat = (await this.script("read", RECENT_EVENTS, [String(limit), types === undefined ? "0" : "1", ...(types ?? [])])) as string[];
    const recent: RecentMemoryEvent[] = [];
    for (let i = flat.length - 2; i >= 0; i -= 2) recent.push({ sessionId: flat[i]!, event: MemoryEventJson.fromJSON(JSON.parse(flat[i + 1]!)) });
    return recent;
  }

  protected override async release(): Promise<void> {
    const client = await this.client?.catch(() => undefined);
    if (client?.isOpen) await client.close().catch(() => client.destroy());
  }

  // ---- private helpers ----

  private script(kind: "read" | "write", source: string, args: string[]): Promise<unknown> {
    // KEYS[1] routes the script on a cluster (every key of the memory is in its slot); the scripts build their key names from ARGV[1].
    return this.run(kind, (c) => c.eval(source, { keys: [`${this.prefix}sessions`], arguments: [this.prefix, ...args] }));
  }

  private async run<T>(kind: "read" | "write", use: (client: RedisClientType) => Promise<T>): Promise<T> {
    try {
      return await use(await this.connect());
    } catch (error) {
      if (isAmplifierError(error)) throw error;
      const message = error instanceof Error ? error.message : String(error);
      const details = { module: MODULE, url: this.url, cause: error, hint: "check that the server runs and the url (config url or AMPLIFIER_REDIS_URL)" };
      throw kind === "write" ? createError("STORAGE_WRITE_FAILED", `Redis at ${this.url}: ${message}`, details) : createError("STORAGE_UNAVAILABLE", `Redis at ${this.url}: ${message}`, details);
    }
  }

  private connect(): Promise<RedisClientType> {
    this.client ??= import("redis").then(async ({ createClient, createCluster }) => {
      // The first connection fails fast (the cause is the error); once connected, a lost
      // connection is retried in the background with capped backoff.
      let connected = false;
      const reconnectStrategy = (retries: number, cause: Error) => (connected ? Math.min(50 * 2 ** Math.min(retries, 6), 2_000) : cause);
      // A cluster client has the same commands (routed by key): hGetAll, lRange and eval are all the memory uses.
      const client = (
        this.rootNodes === undefined
          ? createClient({ url: this.url, disableOfflineQueue: true, socket: { connectTimeout: this.connectTimeoutMs, reconnectStrategy } })
          : createCluster({ rootNodes: this.rootNodes.map((url) => ({ url })), defaults: { disableOfflineQueue: true, socket: { connectTimeout: this.connectTimeoutMs, reconnectStrategy } } })
      ) as unknown as RedisClientType | RedisClusterType;
      client.on("error", () => undefined); // reported by the failing command
      await client.connect();
      connected = true;
      return client as RedisClientType;
    });
    const pending = this.client;
    pending.catch(() => {
      if (this.client === pending) this.client = undefined;
    });
    return pending;
  }
}

/** The root nodes of a `redis+cluster://[user:pass@]host:port,host:port` url (credentials kept on each), else undefined. */
function clusterNodes(url: string, path: string): string[] | undefined {
  const match = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/.exec(url);
  if (!match) return undefined;
  const [, scheme, credentials, hosts] = match;
  return hosts!.split(",").map((hostPort) => {
    if (!/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(hostPort)) {
      throw createError("INVALID_ARGUMENT", `${path}: "${hostPort}" is not host:port`, { module: MODULE, path, expected: "redis+cluster://host:port[,host:port…]", given: url });
    }
    return `${scheme}://${credentials === undefined ? "" : `${credentials}@`}${hostPort}`;
  });
}
