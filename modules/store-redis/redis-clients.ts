/**
 * Redis connections shared per URL: every RedisStore on one URL uses one client (node-redis
 * pipelines the commands of all callers over its socket), counted by leases; the last release
 * closes it, so no socket or timer outlives the stores (the process can exit).
 *
 * The client never queues commands while disconnected (`disableOfflineQueue`): a command sent
 * while the server is away fails at once, and the store's own bounded retries decide what
 * happens — never an unbounded wait. The client keeps reconnecting in the background (capped
 * backoff); its `error` events are recorded, never thrown into the process.
 */
import type { RedisClientType } from "redis";

export interface RedisLease {
  readonly client: RedisClientType;
  /** The last connection error seen (for error messages), if any. */
  lastError(): Error | undefined;
  release(): Promise<void>;
}

interface Shared {
  client: RedisClientType;
  leases: number;
  ready: Promise<void>;
  lastError: Error | undefined;
}

const shared = new Map<string, Shared>();

/** A lease on the client of `url`, connected (rejects with the connection error when it cannot connect within `connectTimeoutMs`). */
export async function acquireRedis(url: string, connectTimeoutMs: number): Promise<RedisLease> {
  let entry = shared.get(url);
  if (!entry) {
    const { createClient } = await import("redis");
    entry = shared.get(url);
    if (!entry) {
      const client = createClient({
        url,
        disableOfflineQueue: true,
        socket: { connectTimeout: connectTimeoutMs, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 6), 2_000) },
      }) as RedisClientType;
      const created: Shared = { client, leases: 0, ready: Promise.resolve(), lastError: undefined };
      client.on("error", (error: Error) => {
        created.lastError = error;
      });
      created.ready = connectOnce(client, connectTimeoutMs, () => created.lastError);
      shared.set(url, created);
      entry = created;
    }
  }
  entry.leases++;
  const current = entry;
  try {
    await current.ready;
  } catch (error) {
    await releaseEntry(url, current);
    throw error;
  }
  let released = false;
  return {
    client: current.client,
    lastError: () => current.lastError,
    async release() {
      if (released) return;
      released = true;
      await releaseEntry(url, current);
    },
  };
}

async function connectOnce(client: RedisClientType, timeoutMs: number, lastError: () => Error | undefined): Promise<void> {
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

async function releaseEntry(url: string, entry: Shared): Promise<void> {
  entry.leases--;
  if (entry.leases > 0) return;
  if (shared.get(url) === entry) shared.delete(url);
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
