// amplifier-ts/memory: agent memory (contracts/MEMORY.md) in one place — the contract's types and
// values, the validating base every backend extends (MemoryBase, the argument checks and shared
// rules of @amplifier-ts/memory-base), the four built-in memories with their config schemas, and
// the recorder's sub-agent helpers.
export {
  checkMemoryEvent,
  DEFAULT_MAX_EVENTS_PER_SESSION,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MEMORY_CONTEXT_LIMIT,
  isMemory,
  MEMORY_CAPABILITY,
  MEMORY_ID_PATTERN,
  memoryErrors,
  MemoryEvent,
  memoryEventJsonSchema,
  memoryOf,
  MemorySession,
  memorySessionJsonSchema,
  missingMemoryMethods,
  type ConversationContextOptions,
  type CreateMemorySessionOptions,
  type GetOrCreateSessionOptions,
  type GetSessionEventsOptions,
  type Memory,
  type MemoryEventContent,
  type MemoryEventJson,
  type MemoryEventType,
  type MemoryEventTypes,
  type MemorySessionJson,
  type MemoryStats,
  type RecentEventsOptions,
  type RecentMemoryEvent,
} from "@amplifier-ts/contracts";
export * from "@amplifier-ts/memory-base";
export { LocalMemory, memoryLocalConfigSchema, RingBuffer, type MemoryLocalConfig, type MemoryLocalOptions } from "@amplifier-ts/module-memory-local";
export { memoryNullConfigSchema, NullMemory, type MemoryNullOptions } from "@amplifier-ts/module-memory-null";
export { DEFAULT_MEMORY_PG_URL, memoryPostgresConfigSchema, PostgresMemory, type MemoryPostgresConfig, type MemoryPostgresOptions } from "@amplifier-ts/module-memory-postgres";
export { DEFAULT_MEMORY_REDIS_URL, memoryRedisConfigSchema, RedisMemory, type MemoryRedisConfig, type MemoryRedisOptions } from "@amplifier-ts/module-memory-redis";
export { finishDelegation, recordIntoMemory, startDelegation, type MemoryRecorderOptions, type StartDelegationOptions } from "@amplifier-ts/module-memory-recorder";
