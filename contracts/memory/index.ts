export {
  DEFAULT_MAX_EVENTS_PER_SESSION,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MEMORY_CONTEXT_LIMIT,
  isMemory,
  MEMORY_CAPABILITY,
  missingMemoryMethods,
  type ConversationContextOptions,
  type CreateSessionOptions as CreateMemorySessionOptions,
  type GetOrCreateSessionOptions,
  type GetSessionEventsOptions,
  type Memory,
  type MemoryEventContent,
  type MemoryEventType,
  type MemoryEventTypes,
  type MemoryStats,
  type RecentEventsOptions,
  type RecentMemoryEvent,
} from "./memory.js";
export { memoryOf } from "./memory-capability.js";
export { memoryErrors } from "./memory-errors.js";
export { checkMemoryEvent, MemoryEvent, MemorySession, type MemoryEventJson, type MemorySessionJson } from "./memory-json.js";
export { MEMORY_ID_PATTERN, memoryEventJsonSchema, memorySessionJsonSchema } from "./memory-schemas.js";
