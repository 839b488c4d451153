// @amplifier-ts/store-redis: hot, shared history in Redis (driver: node-redis).
import type { HistoryStoreDriver, RedisStoreOptions } from "@amplifier-ts/contracts";
import { RedisStore } from "./redis-store.js";

export { DEFAULT_REDIS_URL, RedisStore, type RedisRetryPolicy, type RedisStoreOptions } from "./redis-store.js";
export { redisKeys, type RedisKeys } from "./redis-keys.js";
export { parseRedisUrl, redisStoreOptionsSchema, resolveRedisOptions, type RedisTarget } from "./redis-config.js";

/** What @amplifier-ts/stores' loadHistoryStore() imports for `{ type: "redis" }`. */
export const driver: HistoryStoreDriver<RedisStoreOptions> = {
  type: "redis",
  create: ({ url, cluster, keyPrefix, ttlSeconds, maxMessages, retry, connectTimeoutMs, waitForReplicas }) =>
    new RedisStore({ url, cluster, keyPrefix, ttlSeconds, maxMessages, retry, connectTimeoutMs, waitForReplicas }),
};
