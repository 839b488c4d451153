// @amplifier-ts/store-redis: hot, shared history in Redis (driver: node-redis).
import type { HistoryStoreDriver, RedisStoreOptions } from "@amplifier-ts/contracts";
import { RedisStore } from "./redis-store.js";

export { DEFAULT_REDIS_URL, RedisStore, type RedisRetryPolicy, type RedisStoreOptions } from "./redis-store.js";

/** What @amplifier-ts/stores' loadHistoryStore() imports for `{ type: "redis" }`. */
export const driver: HistoryStoreDriver<RedisStoreOptions> = {
  type: "redis",
  create: ({ url, keyPrefix, ttlSeconds, maxMessages, retry, connectTimeoutMs }) => new RedisStore({ url, keyPrefix, ttlSeconds, maxMessages, retry, connectTimeoutMs }),
};
