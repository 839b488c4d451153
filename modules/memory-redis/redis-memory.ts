import type { RedisClientType, RedisClusterType } from "redis";
import {
  checkCreateOptions,
  checkEventTypes,
  checkMaxAgeHours,
  checkMaxEvents,
  checkMemoryEvent,
  checkMemorySessionId,
  checkRecentOptions,
  checkUserFilter,
  createError,
  createMemoryEvent,
  formatConversation,
  isAmplifierError,
  MemoryEvent as MemoryEventJson,
  memoryErrors,
  memoryOptions,
  memoryRedisConfigSchema,
  memoryStats,
  sessionsToEvict,
  type ConversationContextOptions,
  type CreateMemorySessionOptions,
  type GetOrCreateSessionOptions,
  type GetSessionEventsOptions,
  type Memory,
  type MemoryEvent,
  type MemoryEventContent,
  type MemoryEventType,
  type MemoryRedisOptions,
  type MemorySession,
  type MemoryStats,
  type RecentEventsOptions,
  type RecentMemoryEvent,
} from "@amplifier-ts/contracts";
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
export class RedisMemory implements Memory {
  readonly kind = "redis";
  readonly contextLimit: number;
  readonly maxSessions: number;
  readonly maxEventsPerSession: number;
  readonly url: string;
  readonly keyPrefix: string;
  /** The prefix of every key: keyPrefix, or `{keyPrefix}` on a Redis Cluster (one hash tag, one slot). */
  private readonly prefix: string;
  /** A Redis Cluster's root nodes (`redis+cluster://` url), else undefined. */
  private readonly rootNodes: string[] | undefined;
  private readonly connectTimeoutMs: number;
  private client: Promise<RedisClientType> | undefined;
  private closed = false;

  constructor(options: MemoryRedisOptions = {}) {
    const resolved = memoryOptions(memoryRedisConfigSchema, options, MODULE);
    this.contextLimit = resolved.contextLimit;
    this.maxSessions = resolved.maxSessions;
    this.maxEventsPerSession = resolved.maxEventsPerSession;
    this.url = resolved.url ?? process.env.AMPLIFIER_REDIS_URL ?? DEFAULT_MEMORY_REDIS_URL;
    const path = resolved.url === undefined ? "AMPLIFIER_REDIS_URL" : "url";
    this.rootNodes = clusterNodes(this.url, path);
    if (this.rootNodes === undefined && !/^rediss?:\/\//.test(this.url)) throw createError("INVALID_ARGUMENT", undefined, { module: MODULE, path, expected: "redis://host:port or redis+cluster://host:port,…", given: this.url });
    this.keyPrefix = resolved.keyPrefix ?? "amplifier:memory:";
    if (this.rootNodes !== undefined && /[{}]/.test(this.keyPrefix)) {
      throw createError("INVALID_ARGUMENT", "keyPrefix cannot hold { or } on a Redis Cluster", { module: MODULE, path: "keyPrefix", expected: "a prefix without braces (the memory wraps it in a hash tag)", given: this.keyPrefix });
    }
    // On a cluster every key of the memory carries one hash tag — the prefix — so each script's keys share a slot.
    this.prefix = this.rootNodes === undefined ? this.keyPrefix : `{${this.keyPrefix}}`;
    this.connectTimeoutMs = resolved.connectTimeoutMs ?? 2_000;
  }

  async createSession(options: CreateMemorySessionOptions): Promise<string> {
    this.live();
    const { appName, userId, sessionId } = checkCreateOptions(options, MODULE, "createSession");
    if ((await this.create(appName, userId, sessionId)) === 0) {
      throw memoryErrors.create("SESSION_EXISTS", `session "${sessionId}" already exists`, { module: MODULE, path: "createSession.sessionId", given: sessionId, hint: "use getOrCreateSession to reuse it" });
    }
    return sessionId;
  }

  async getOrCreateSession(options: GetOrCreateSessionOptions): Promise<string> {
    this.live();
    const { appName, userId, sessionId } = checkCreateOptions(options, MODULE, "getOrCreateSession", true);
    await this.create(appName, userId, sessionId);
    return sessionId;
  }

  async getSession(sessionId: string): Promise<MemorySession | undefined> {
    this.live();
    const id = checkMemorySessionId(sessionId, MODULE);
    const hash = await this.run("read", (c) => c.hGetAll(`${this.prefix}s:${id}`));
    if (hash.appName === undefined) return undefined;
    return {
      sessionId: id,
      appName: hash.appName,
      userId: hash.userId ?? "",
      createdAt: new Date(Number(hash.createdAt)),
      updatedAt: new Date(Number(hash.updatedAt)),
      events: await this.events(id),
    };
  }

  async listSessions(options?: { userId?: string }): Promise<string[]> {
    this.live();
    const userId = checkUserFilter(options, MODULE);
    return (await this.script("read", LIST_SESSIONS, [userId ?? ""])) as string[];
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    this.live();
    const id = checkMemorySessionId(sessionId, MODULE);
    return (await this.script("write", DELETE_SESSION, [id])) === 1;
  }

  createEvent<T extends MemoryEventType>(eventType: T, content: MemoryEventContent<T>, metadata?: Record<string, unknown>): MemoryEvent<T> {
    return createMemoryEvent(eventType, content, metadata);
  }

  async addEvent(sessionId: string, event: MemoryEvent): Promise<boolean> {
    this.live();
    const id = checkMemorySessionId(sessionId, MODULE);
    checkMemoryEvent(event, "event");
    const json = JSON.stringify(MemoryEventJson.toJSON(event));
    return (await this.script("write", ADD_EVENT, [id, json, String(this.maxEventsPerSession), String(Date.now())])) === 1;
  }

  async getSessionEvents(sessionId: string, options?: GetSessionEventsOptions): Promise<MemoryEvent[]> {
    this.live();
    const id = checkMemorySessionId(sessionId, MODULE);
    const types = checkEventTypes(options, MODULE);
    const events = await this.events(id);
    return types === undefined ? events : events.filter((e) => types.has(e.eventType));
  }

  async buildConversationContext(sessionId: string, options: ConversationContextOptions): Promise<string> {
    this.live();
    const id = checkMemorySessionId(sessionId, MODULE);
    const maxEvents = checkMaxEvents(options, MODULE);
    return formatConversation(await this.events(id), maxEvents);
  }

  async cleanupOldSessions(options: { maxAgeHours: number }): Promise<number> {
    this.live();
    const cutoff = checkMaxAgeHours(options, MODULE);
    return (await this.script("write", CLEANUP, [String(cutoff.getTime())])) as number;
  }

  async getMemoryStats(): Promise<MemoryStats> {
    this.live();
    const [sessions, events] = (await this.script("read", STATS, [])) as [number, number];
    return memoryStats(sessions, events);
  }

  async getRecentEvents(options: RecentEventsOptions): Promise<RecentMemoryEvent[]> {
    this.live();
    const { limit, types } = checkRecentOptions(options, MODULE);
    if (limit === 0 || types?.size === 0) return [];
    const flat = (await this.script("read", RECENT_EVENTS, [String(limit), types === undefined ? "0" : "1", ...(types ?? [])])) as string[];
    const recent: RecentMemoryEvent[] = [];
    for (let i = flat.length - 2; i >= 0; i -= 2) recent.push({ sessionId: flat[i]!, event: MemoryEventJson.fromJSON(JSON.parse(flat[i + 1]!)) });
    return recent;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const client = await this.client?.catch(() => undefined);
    if (client?.isOpen) await client.close().catch(() => client.destroy());
  }

  // ---- private helpers ----

  private create(appName: string, userId: string, sessionId: string): Promise<unknown> {
    return this.script("write", CREATE_SESSION, [sessionId, appName, userId, String(Date.now()), String(this.maxSessions), String(sessionsToEvict(this.maxSessions))]);
  }

  private async events(id: string): Promise<MemoryEvent[]> {
    const list = await this.run("read", (c) => c.lRange(`${this.prefix}e:${id}`, 0, -1));
    // Lists can be written by others (another version, redis-cli): each record is checked on the way out.
    return list.map((json) => MemoryEventJson.fromJSON(JSON.parse(json)));
  }

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

  private live(): void {
    if (this.closed) throw memoryErrors.create("CLOSED", undefined, { module: MODULE });
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
