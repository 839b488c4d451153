// @amplifier-ts/memory-base: the memory contract over storage primitives, for every memory backend.
export { MemoryBase, type NewMemorySession } from "./memory-base.js";
export { checkCreateOptions, checkEventTypes, checkMaxAgeHours, checkMaxEvents, checkMemorySessionId, checkRecentOptions, checkUserFilter, newMemorySessionId } from "./memory-args.js";
export { memoryLimitFields, memoryOptions, positiveIntegerOption, type MemoryLimits } from "./memory-limits.js";
export { CONVERSATION_SPEAKERS, createMemoryEvent, formatConversation, memoryStats, sessionsToEvict } from "./memory-rules.js";
export { defineMemoryModule, mountMemory, type MemoryModule, type MemoryModuleDefinition } from "./mount-memory.js";
export { newestOverSessions, recentMemoryEvents } from "./recent-events.js";
