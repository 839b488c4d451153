import type { HistoryStore } from "./history-store.js";

/**
 * The options of the history stores whose drivers are separate packages
 * (@amplifier-ts/store-postgres, @amplifier-ts/store-redis). They live here, not with the drivers,
 * so a store config can be typed and validated without installing a driver; each driver re-exports
 * its own.
 */

/** Backoff for transient failures: tries in all (the first included, ≥ 1), jittered exponential delays. */
export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface PostgresStoreOptions {
  /** Default: env AMPLIFIER_PG_URL, else postgres://127.0.0.1:5432/test. */
  url?: string;
  /** Default "public"; created by the migrations when missing. */
  schema?: string;
  /** Default "amplifier_messages"; `<table>_sessions` and `<table>_migrations` sit beside it. */
  table?: string;
  /** Backoff for transient failures (connection lost, server restarting); default 8 tries, 50 ms → 2 s. */
  retry?: Partial<RetryPolicy>;
  /** Connections in the shared pool of this URL (taken from the first store on the URL; default 10). */
  poolSize?: number;
  /**
   * How long the store tries to reach the server the first time — each connection attempt, and
   * connect + migrations with their retries together — before STORAGE_UNAVAILABLE (context-persistent
   * then falls back to memory, or fails with `strict`). Default 3000 ms. Each later connection of the
   * pool is bounded by it too (taken from the first store on the URL).
   */
  connectTimeoutMs?: number;
}

/** Redis's backoff has the same shape as every other store's, with the window of unknown outcomes. */
export interface RedisRetryPolicy extends RetryPolicy {
  /**
   * A write whose reply was lost (it may have been applied) is retried — idempotently — until its
   * outcome is known or this long after the loss, even past `attempts`; then STORAGE_WRITE_UNCERTAIN.
   * Default 10000 ms.
   */
  outcomeWindowMs: number;
}

export interface RedisStoreOptions {
  /** Default: env AMPLIFIER_REDIS_URL, else redis://127.0.0.1:6379. `redis+cluster://host:port,host:port` names a Redis Cluster. */
  url?: string;
  /** A Redis Cluster, by one or more of its nodes (`redis://host:port`; the client discovers the rest). Exclusive with `url`. */
  cluster?: { rootNodes: string[] };
  /** Durability: after each write, WAIT until `replicas` replicas hold it (`timeoutMs` each try, default 1000); fewer → retried, then STORAGE_WRITE_UNCERTAIN (the primary holds it; a retry is safe). */
  waitForReplicas?: { replicas: number; timeoutMs?: number };
  /** Prefix of every key this store writes. Default "amplifier:". */
  keyPrefix?: string;
  /** Cache policy: a session's keys expire this long after its last write (refreshed on every write). Not retention. */
  ttlSeconds?: number;
  /** Cache policy: keep only the newest maxMessages of a session (hot state). Not retention. */
  maxMessages?: number;
  /** Backoff for transient failures (server gone, restarting, loading). Default 6 tries, 25 ms → 1 s. */
  retry?: Partial<RedisRetryPolicy>;
  /** How long open() waits for a first connection. Default 2000 ms. */
  connectTimeoutMs?: number;
}

/**
 * What a store driver package exports as `driver`: the store type it serves and a factory.
 * `create` touches no storage (connections are opened by the store's open()).
 */
export interface HistoryStoreDriver<Options = Record<string, unknown>> {
  readonly type: string;
  create(options: Options): HistoryStore;
}
