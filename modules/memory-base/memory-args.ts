import { randomUUID } from "node:crypto";
import {
  createError,
  MEMORY_ID_PATTERN,
  type ConversationContextOptions,
  type CreateMemorySessionOptions,
  type GetSessionEventsOptions,
  type RecentEventsOptions,
} from "@amplifier-ts/contracts";

/**
 * The argument checks of the memory contract, so that every memory refuses the same inputs with
 * the same errors (the conformance suite holds them to it). MemoryBase runs them once per call;
 * a memory written without the base may call them itself.
 *
 * | rule | here |
 * |---|---|
 * | session ids: 1-128 of [A-Za-z0-9._-], not starting with a dot | checkMemorySessionId → INVALID_SESSION_ID |
 * | getRecentEvents: a limit ≥ 0 and an eventTypes array | checkRecentOptions |
 * | appName / userId: strings of at most 256 characters | checkCreateOptions |
 * | new session ids: `session_<uuid>` | newMemorySessionId |
 * | buildConversationContext: maxEvents a whole number ≥ 0 | checkMaxEvents |
 * | cleanupOldSessions: maxAgeHours a finite number ≥ 0 | checkMaxAgeHours |
 * | listSessions: userId a string when given | checkUserFilter |
 */

export function checkMemorySessionId(sessionId: unknown, module: string, path = "sessionId"): string {
  if (typeof sessionId === "string" && MEMORY_ID_PATTERN.test(sessionId)) return sessionId;
  throw createError("INVALID_SESSION_ID", undefined, { module, path, expected: "1-128 characters of [A-Za-z0-9._-], not starting with a dot", given: sessionId });
}

export function newMemorySessionId(): string {
  return `session_${randomUUID()}`;
}

/** createSession / getOrCreateSession options, checked; the session id is generated when absent. */
export function checkCreateOptions(options: unknown, module: string, method: string, idRequired = false): Required<CreateMemorySessionOptions> {
  if (typeof options !== "object" || options === null) {
    throw createError("INVALID_ARGUMENT", `${method}() takes { appName, userId${idRequired ? ", sessionId" : ", sessionId?"} }`, { module, path: method, expected: "an options object", given: options });
  }
  const o = options as Partial<CreateMemorySessionOptions>;
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
