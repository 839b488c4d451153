/* eslint-disable */
/**
 * Generated from contracts/schemas/modules/memory-redis.config.schema.json by `npm run contracts` (contracts/generate.mjs) — do not edit.
 * The schemas are emitted from their zod sources (contracts/emit-schemas.mjs): edit those and run
 * `npm run contracts`; test/contracts/generated-fresh.test.ts fails while this file is stale.
 */

/**
 * Config of memory-redis: one memory shared by every process on the same url and key prefix.
 */
export interface MemoryRedisConfig {
  /**
   * Events of delegation context a child session inherits (buildConversationContext). Default 6; env MEMORY_CONTEXT_LIMIT.
   */
  contextLimit?: number;
  /**
   * Sessions kept; creating one more removes the oldest 10 %. Default 1000; env MEMORY_MAX_SESSIONS.
   */
  maxSessions?: number;
  /**
   * Events kept per session; the oldest go first (a ring buffer). Default 500; env MEMORY_MAX_SESSION_EVENTS.
   */
  maxEventsPerSession?: number;
  /**
   * redis://host:port[/db], or redis+cluster://host:port,host:port for a Redis Cluster (every key of the memory in one slot). Default AMPLIFIER_REDIS_URL, else redis://127.0.0.1:6379.
   */
  url?: string;
  /**
   * Prefix of every key. Default amplifier:memory:.
   */
  keyPrefix?: string;
  /**
   * How long connecting may take, in ms. Default 2000.
   */
  connectTimeoutMs?: number;
}
