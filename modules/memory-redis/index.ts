// @amplifier-ts/module-memory-redis: agent memory in Redis, shared by every replica.
import type { CoordinatorContract, MemoryRedisOptions, ModuleMeta } from "@amplifier-ts/contracts";
import { memoryRedisConfigSchema, mountMemory } from "@amplifier-ts/contracts";
import { RedisMemory } from "./redis-memory.js";

export { DEFAULT_MEMORY_REDIS_URL, RedisMemory } from "./redis-memory.js";

export const meta: ModuleMeta = {
  name: "memory-redis",
  version: "0.1.0",
  kind: "memory",
  description: "Sessions and typed events in Redis: hot, one memory for every process on the same url and key prefix.",
  configSchema: memoryRedisConfigSchema,
};

export async function mount(coordinator: CoordinatorContract, config: MemoryRedisOptions = {}): Promise<RedisMemory> {
  return mountMemory(coordinator, new RedisMemory(config));
}
