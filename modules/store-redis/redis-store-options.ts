import type { RetryPolicy } from "@amplifier-ts/stores";

/** Redis's backoff has the same shape as every other store's, with the window of unknown outcomes. */
export interface RedisRetryPolicy extends RetryPolicy {
  /**
   * A write whose reply was lost (it may have been applied) is retried — idempotently — until its
   * outcome is known or this long after the loss, even past `attempts`; then STORAGE_WRITE_UNCERTAIN.
   * Default 10000 ms.
   */
  outcomeWindowMs: number;
}

/** The options of `{ "type": "redis" }` and of `new RedisStore(options)` (checked by redisStoreOptionsSchema). */
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
