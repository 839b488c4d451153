// @amplifier-ts/module-memory-redis: agent memory in Redis, shared by every replica.
import { defineMemoryModule } from "@amplifier-ts/memory-base";
import { memoryRedisConfigSchema } from "./memory-redis-config.js";
import { RedisMemory } from "./redis-memory.js";

export { memoryRedisConfigSchema, type MemoryRedisConfig, type MemoryRedisOptions } from "./memory-redis-config.js";
export { DEFAULT_MEMORY_REDIS_URL, RedisMemory } from "./redis-memory.js";

export const { meta, mount } = defineMemoryModule({
  name: "memory-redis",
  description: "Sessions and typed events in Redis: hot, one memory for every process on the same url and key prefix.",
  configSchema: memoryRedisConfigSchema,
  create: (config) => new RedisMemory(config),
});
