// @amplifier-ts/store-redis: hot, shared history in Redis (driver: node-redis).
import { defineHistoryStore, type HistoryStoreDriver } from "@amplifier-ts/stores";
import { redisStoreOptionsSchema } from "./redis-config.js";
import { RedisStore } from "./redis-store.js";
import type { RedisStoreOptions } from "./redis-store-options.js";

export { DEFAULT_REDIS_URL, RedisStore } from "./redis-store.js";
export type { RedisRetryPolicy, RedisStoreOptions } from "./redis-store-options.js";
export { redisKeys, type RedisKeys } from "./redis-keys.js";
export { parseRedisUrl, redisStoreOptionsSchema, resolveRedisOptions, type RedisTarget } from "./redis-config.js";

/** `{ "type": "redis" }`: what @amplifier-ts/stores' built-in list imports for this type. */
export const historyStore = defineHistoryStore({
  type: "redis",
  description: "hot history shared by every process on a Redis server or cluster",
  // Loose: keys the store does not know are ignored, as they always were.
  options: redisStoreOptionsSchema.loose(),
  create: (options) => createRedisStore(options as RedisStoreOptions),
});

/** The factory alone, as store drivers were exported before definitions carried a schema. */
export const driver: HistoryStoreDriver<RedisStoreOptions> = { type: "redis", create: createRedisStore };

function createRedisStore({ url, cluster, keyPrefix, ttlSeconds, maxMessages, retry, connectTimeoutMs, waitForReplicas }: RedisStoreOptions): RedisStore {
  return new RedisStore({ url, cluster, keyPrefix, ttlSeconds, maxMessages, retry, connectTimeoutMs, waitForReplicas });
}
