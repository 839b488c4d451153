import { randomUUID } from "node:crypto";
import type { ZodType } from "zod";
import { createError } from "../errors.js";
import { parseValid } from "../validators/index.js";
import {
  DEFAULT_MAX_EVENTS_PER_SESSION,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MEMORY_CONTEXT_LIMIT,
  type ConversationContextOptions,
  type CreateSessionOptions,
  type GetSessionEventsOptions,
  type MemoryEvent,
  type MemoryStats,
  type RecentEventsOptions,
} from "./memory.js";
import { MEMORY_ID_PATTERN } from "./memory-schemas.js";

/**
 * The argument checks and small rules every memory implementation shares, so that all of them
 * refuse the same inputs with the same errors and answer the same way (the conformance suite
 * holds them to it). One place per rule:
 *
 * | rule | here |
 * |---|---|
 * | session ids: 1-128 of [A-Za-z0-9._-], not starting with a dot | checkMemorySessionId → INVALID_SESSION_ID |
 * | getRecentEvents: a limit ≥ 0 and an eventTypes array | checkRecentOptions |
 * | appName / userId: strings of at most 256 characters | checkCreateOptions |
 * | new session ids: `session_<uuid>` | newMemorySessionId |
 * | which events make the conversation, and how it reads | formatConversation |
 * | how many sessions go when maxSessions is exceeded: 10 %, at least one | sessionsToEvict |
 * | avgEventsPerSession: rounded down | memoryStats |
 */

export interface MemoryLimits {
  contextLimit: number;
  maxSessions: number;
  maxEventsPerSession: number;
}

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

export function checkMemorySessionId(sessionId: unknown, module: string, path = "sessionId"): string {
  if (typeof sessionId === "string" && MEMORY_ID_PATTERN.test(sessionId)) return sessionId;
  throw createError("INVALID_SESSION_ID", undefined, { module, path, expected: "1-128 characters of [A-Za-z0-9._-], not starting with a dot", given: sessionId });
}

export function newMemorySessionId(): string {
  return `session_${randomUUID()}`;
}

/** createSession / getOrCreateSession options, checked; the session id is generated when absent. */
export function checkCreateOptions(options: unknown, module: string, method: string, idRequired = false): Required<CreateSessionOptions> {
  if (typeof options !== "object" || options === null) {
    throw createError("INVALID_ARGUMENT", `${method}() takes { appName, userId${idRequired ? ", sessionId" : ", sessionId?"} }`, { module, path: method, expected: "an options object", given: options });
  }
  const o = options as Partial<CreateSessionOptions>;
  for (const key of ["appName", "userId"] as const) {
    if (typeof o[key] !== "string" || o[key].length > 256) {
      throw createError("INVALID_ARGUMENT", undefined, { module, path: `${method}.${key}`, expected: "a string of at most 256 characters", given: o[key] });
    }
  }
  const sessionId = o.sessionId === undefined && !idRequired ? newMemorySessionId() : checkMemorySessionId(o.sessionId, module, `${method}.sessionId`);
  return { appName: o.appName!, userId: o.userId!, sessionId };
}

/** The eventTypes filter as a Set, or undefined for all types. */
export function checkEventTypes(options: GetSessionEventsOptions | undefined, module: string, method = "getSessionEvents"): ReadonlySet<string> | undefined {
  if (options === undefined || options.eventTypes === undefined) return undefined;
  const types = options.eventTypes as unknown;
  if (!Array.isArray(types) || !types.every((t) => typeof t === "string")) {
    throw createError("INVALID_ARGUMENT", undefined, { module, path: `${method}.eventTypes`, expected: "an array of event type names", given: types });
  }
  return new Set(types as string[]);
}

/** getRecentEvents options, checked: the limit and the eventTypes filter (undefined for all types). */
export function checkRecentOptions(options: RecentEventsOptions | undefined, module: string): { limit: number; types: ReadonlySet<string> | undefined } {
  const limit = (options as Partial<RecentEventsOptions> | undefined)?.limit;
  if (!Number.isSafeInteger(limit) || limit! < 0) {
    throw createError("INVALID_ARGUMENT", undefined, { module, path: "getRecentEvents.limit", expected: "a whole number ≥ 0", given: limit });
  }
  return { limit: limit!, types: checkEventTypes(options, module, "getRecentEvents") };
}

export function checkMaxEvents(options: ConversationContextOptions | undefined, module: string): number {
  const max = (options as Partial<ConversationContextOptions> | undefined)?.maxEvents;
  if (Number.isSafeInteger(max) && max! >= 0) return max!;
  throw createError("INVALID_ARGUMENT", undefined, { module, path: "buildConversationContext.maxEvents", expected: "a whole number ≥ 0", given: max });
}

/** The cut-off time of cleanupOldSessions: sessions last changed before it go. */
export function checkMaxAgeHours(options: { maxAgeHours: number } | undefined, module: string): Date {
  const hours = (options as { maxAgeHours?: unknown } | undefined)?.maxAgeHours;
  if (typeof hours === "number" && Number.isFinite(hours) && hours >= 0) return new Date(Date.now() - hours * 3_600_000);
  throw createError("INVALID_ARGUMENT", undefined, { module, path: "cleanupOldSessions.maxAgeHours", expected: "a finite number of hours ≥ 0", given: hours });
}

export function checkUserFilter(options: { userId?: string } | undefined, module: string): string | undefined {
  const userId = (options as { userId?: unknown } | undefined)?.userId;
  if (userId === undefined || typeof userId === "string") return userId;
  throw createError("INVALID_ARGUMENT", undefined, { module, path: "listSessions.userId", expected: "a string", given: userId });
}

/** The event types buildConversationContext reads, and the speaker each is shown as. */
export const CONVERSATION_SPEAKERS: Readonly<Record<string, string>> = Object.freeze({ user_message: "User", agent_response: "Assistant" });

/**
 * The conversation as text: one line per user_message ("User: …") and agent_response
 * ("Assistant: …"), oldest first, the newest `maxEvents` of them; other events are not
 * conversation and are left out. Content that is not a string is written as JSON.
 */
export function formatConversation(events: readonly MemoryEvent[], maxEvents: number): string {
  const lines: string[] = [];
  for (let i = events.length - 1; i >= 0 && lines.length < maxEvents; i--) {
    const event = events[i]!;
    const speaker = CONVERSATION_SPEAKERS[event.eventType];
    if (speaker !== undefined) lines.push(`${speaker}: ${typeof event.content === "string" ? event.content : JSON.stringify(event.content)}`);
  }
  return lines.reverse().join("\n");
}

/** How many of the oldest sessions go when creating one would exceed maxSessions: 10 %, at least one. */
export function sessionsToEvict(maxSessions: number): number {
  return Math.max(1, Math.ceil(maxSessions / 10));
}

export function memoryStats(totalSessions: number, totalEvents: number): MemoryStats {
  return { totalSessions, totalEvents, avgEventsPerSession: totalSessions === 0 ? 0 : Math.floor(totalEvents / totalSessions) };
}
