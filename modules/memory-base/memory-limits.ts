import { z, type ZodType } from "zod";
import { DEFAULT_MAX_EVENTS_PER_SESSION, DEFAULT_MAX_SESSIONS, DEFAULT_MEMORY_CONTEXT_LIMIT, parseValid } from "@amplifier-ts/contracts";

/** The limits every built-in memory takes, resolved (defaults of contracts/MEMORY.md filled in). */
export interface MemoryLimits {
  contextLimit: number;
  maxSessions: number;
  maxEventsPerSession: number;
}

/** A whole number from 1 to `max`, for a memory's config schema. */
export function positiveIntegerOption(description: string, max = 1_000_000_000) {
  return z.number().int().min(1).max(max).meta({ description });
}

/**
 * The zod fields of the limits, for a memory module's own config schema
 * (`z.strictObject({ ...memoryLimitFields, url: … })`): one wording of each limit for every module.
 */
export const memoryLimitFields = {
  contextLimit: positiveIntegerOption(`Events of delegation context a child session inherits (buildConversationContext). Default ${DEFAULT_MEMORY_CONTEXT_LIMIT}; env MEMORY_CONTEXT_LIMIT.`, 100_000).optional(),
  maxSessions: positiveIntegerOption(`Sessions kept; creating one more removes the oldest 10 %. Default ${DEFAULT_MAX_SESSIONS}; env MEMORY_MAX_SESSIONS.`).optional(),
  maxEventsPerSession: positiveIntegerOption(`Events kept per session; the oldest go first (a ring buffer). Default ${DEFAULT_MAX_EVENTS_PER_SESSION}; env MEMORY_MAX_SESSION_EVENTS.`).optional(),
};

/** A module's config checked against its schema (INVALID_ARGUMENT at `config.<key>`), with the limits' defaults. */
export function memoryOptions<T extends Partial<MemoryLimits>>(schema: ZodType<T>, config: unknown, module: string): T & MemoryLimits {
  const parsed = parseValid(schema, config ?? {}, { code: "INVALID_ARGUMENT", path: "config", details: { module } });
  return {
    ...parsed,
    contextLimit: parsed.contextLimit ?? DEFAULT_MEMORY_CONTEXT_LIMIT,
    maxSessions: parsed.maxSessions ?? DEFAULT_MAX_SESSIONS,
    maxEventsPerSession: parsed.maxEventsPerSession ?? DEFAULT_MAX_EVENTS_PER_SESSION,
  };
}
