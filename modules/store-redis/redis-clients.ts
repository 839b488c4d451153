/**
 * Redis connections shared per target: every RedisStore on one server (or one cluster) uses one
 * client (node-redis pipelines the commands of all callers over its sockets), counted by leases;
 * the last release closes it, so no socket or timer outlives the stores (the process can exit).
 *
 * A target is one server (`createClient`) or a Redis Cluster (`createCluster`: the client
 * discovers the nodes from the root nodes, routes each command to the primary of its key's slot,
 * follows MOVED/ASK, and refreshes the topology shortly after a node stops answering — a
 * failover). Both are used through `RedisConnection`, which sends raw commands routed by key.
 *
 * The client never queues commands while disconnected (`disableOfflineQueue`): a command sent
 * while the server is away fails at once, and the store's own bounded retries decide what
 * happens — never an unbounded wait. The client keeps reconnecting in the background (capped
 * backoff); its `error` events are recorded, never thrown into the process.
 */
import type { RedisClientType, RedisClusterType } from "redis";
import { targetKey, type RedisTarget } from "./redis-config.js";

/** What the store needs of a connection, the same for one server and a cluster. */
export interface RedisConnection {
  readonly cluster: boolean;
  /** One command, sent to the server (in a cluster: the primary of `key`'s slot). */
  command<T = unknown>(key: string, args: string[]): Promise<T>;
  /** WAIT on the connection that wrote `key`: how many replicas acknowledged every write sent on it so far. */
  waitReplicas(key: string, replicas: number, timeoutMs: number): Promise<number>;
  /** A client per primary (one for a single server): for SCAN. */
  primaries(): Promise<RedisClientType[]>;
}

export interface RedisLease {
  readonly connection: RedisConnection;
  /** The last connection error seen (for error messages), if any. */
  lastError(): Error | undefined;
  release(): Promise<void>;
}

type AnyClient = RedisClientType | RedisClusterType;

interface Shared {
  client: AnyClient;
  connection: RedisConnection;
  leases: number;
  ready: Promise<void>;
  lastError: Error | undefined;
}

const shared = new Map<string, Shared>();

const reconnectStrategy = (retries: number) => Math.min(50 * 2 ** Math.min(retries, 6), 2_000);

async function createShared(target: RedisTarget, connectTimeoutMs: number): Promise<Shared> {
  const { createClient, createCluster } = await import("redis");
  if (target.kind === "single") {
    const client = createClient({ url: target.url, disableOfflineQueue: true, socket: { connectTimeout: connectTimeoutMs, reconnectStrategy } }) as RedisClientType;
    const connection: RedisConnection = {
      cluster: false,
      command: <T>(_key: string, args: string[]) => client.sendCommand(args) as Promise<T>,
      waitReplicas: async (_key, replicas, timeoutMs) => Number(await client.sendCommand(["WAIT", String(replicas), String(timeoutMs)])),
      primaries: async () => [client],
    };
    return { client, connection, leases: 0, ready: Promise.resolve(), lastError: undefined };
  }
  const cluster = createCluster({
    rootNodes: target.rootNodes.map((url) => ({ url })),
    defaults: {
      ...(target.username ? { username: target.username } : {}),
      ...(target.password ? { password: target.password } : {}),
      disableOfflineQueue: true,
      socket: { connectTimeout: connectTimeoutMs, reconnectStrategy, ...(target.tls ? { tls: true as const } : {}) },
    },
    // A primary that stops answering is usually being failed over: look for its successor soon.
    topologyRefreshOnReconnectionAttemptStrategy: 200,
  }) as unknown as RedisClusterType;
  const connection: RedisConnection = {
    cluster: true,
    command: <T>(key: string, args: string[]) => cluster.sendCommand(key, false, args) as Promise<T>,
    waitReplicas: async (key, replicas, timeoutMs) => {
      const node = await cluster.getNodeClientForKey(key, false);
      return Number(await node.sendCommand(["WAIT", String(replicas), String(timeoutMs)]));
    },
    primaries: () => Promise.all(cluster.masters.map((m) => cluster.nodeClient(m) as Promise<RedisClientType>)),
  };
  return { client: cluster, connection, leases: 0, ready: Promise.resolve(), lastError: undefined };
}

/** A lease on the client of `target`, connected (rejects with the connection error when it cannot connect within `connectTimeoutMs`). */
export async function acquireRedis(target: RedisTarget, connectTimeoutMs: number): Promise<RedisLease> {
  const key = targetKey(target);
  let entry = shared.get(key);
  if (!entry) {
    const created = await createShared(target, connectTimeoutMs);
    entry = shared.get(key);
    if (!entry) {
      created.client.on("error", (error: Error) => {
        created.lastError = error;
      });
      created.ready = connectOnce(created.client, connectTimeoutMs, () => created.lastError);
      shared.set(key, created);
      entry = created;
    }
  }
  entry.leases++;
  const current = entry;
  try {
    await current.ready;
  } catch (error) {
    await releaseEntry(key, current);
    throw error;
  }
  let released = false;
  return {
    connection: current.connection,
    lastError: () => current.lastError,
    async release() {
      if (released) return;
      released = true;
      await releaseEntry(key, current);
    },
  };
}

async function connectOnce(client: AnyClient, timeoutMs: number, lastError: () => Error | undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(lastError() ?? new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([client.connect(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function releaseEntry(key: string, entry: Shared): Promise<void> {
  entry.leases--;
  if (entry.leases > 0) return;
  if (shared.get(key) === entry) shared.delete(key);
  try {
    if (entry.client.isOpen) await entry.client.close();
    else entry.client.destroy();
  } catch {
    entry.client.destroy();
  }
}

/** Open shared clients (for tests proving nothing is left open). */
export function openRedisClients(): number {
  return shared.size;
}
