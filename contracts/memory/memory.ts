/**
 * The memory contract (version 1): what an agent did, per session, as a typed event log —
 * camelCase names over a snake_case JSON interchange form (contracts/MEMORY.md). A memory module mounts at the
 * `memory` mount point and offers itself as the coordinator capability "memory"
 * (MEMORY_CAPABILITY); the conformance suite is `describeMemoryContract` in @amplifier-ts/testing.
 *
 * | method | answers | on an unknown session |
 * |---|---|---|
 * | createSession({ appName, userId, sessionId? }) | the new session's id | (MEMORY/SESSION_EXISTS when the id is taken) |
 * | getOrCreateSession({ sessionId, appName, userId }) | the id (created when missing) | created |
 * | getSession(id) | the session with its events, or undefined | undefined |
 * | listSessions({ userId? }) | session ids, oldest first | — |
 * | deleteSession(id) | true when something was deleted | false |
 * | createEvent(type, content, metadata?) | a new MemoryEvent (not stored) | — |
 * | addEvent(sessionId, event) | true when stored | false (nothing stored) |
 * | getSessionEvents(sessionId, { eventTypes? }) | events, oldest first | [] |
 * | buildConversationContext(sessionId, { maxEvents }) | "User: …\nAssistant: …" | "" |
 * | cleanupOldSessions({ maxAgeHours }) | how many sessions were removed | — |
 * | getMemoryStats() | { totalSessions, totalEvents, avgEventsPerSession } | — |
 * | getRecentEvents?({ limit, eventTypes? }) | the newest `limit` events over all sessions, with their session ids, newest last | — |
 */

/**
 * Event type → content type. Seven types are built in; others are allowed (their
 * content is `unknown`) and are typed by augmentation, like hook events:
 *
 * ```ts
 * declare module "@amplifier-ts/contracts" {
 *   interface MemoryEventTypes { plan_step: { step: number; text: string } }
 * }
 * ```
 */
export interface MemoryEventTypes {
  user_message: string;
  agent_response: string;
  tool_call: { tool: string; arguments: unknown; callId?: string };
  tool_result: { tool: string; result: unknown; callId?: string; isError?: boolean };
  delegation_request: { agent: string; task: string; childSessionId?: string; parentSessionId?: string };
  delegation_response: { agent: string; response: string; childSessionId?: string; parentSessionId?: string };
  error: string;
}

/** A known event type, or any other name (`(string & {})` keeps editor completion of the known ones). */
export type MemoryEventType = Extract<keyof MemoryEventTypes, string> | (string & {});

/** The content type of an event type: the map's entry, `unknown` for types it does not know. */
export type MemoryEventContent<T extends string> = T extends keyof MemoryEventTypes ? MemoryEventTypes[T] : unknown;

/** One entry of the log. `content` and `metadata` are JSON values (they cross processes and HTTP). */
export interface MemoryEvent<T extends MemoryEventType = MemoryEventType> {
  eventId: string;
  timestamp: Date;
  eventType: T;
  content: MemoryEventContent<T>;
  metadata: Record<string, unknown>;
}

export interface MemorySession {
  sessionId: string;
  appName: string;
  userId: string;
  createdAt: Date;
  /** The last change: creation or the last addEvent. cleanupOldSessions ages sessions by it. */
  updatedAt: Date;
  /** Oldest first; at most maxEventsPerSession. */
  events: MemoryEvent[];
}

export interface MemoryStats {
  totalSessions: number;
  totalEvents: number;
  /** totalEvents / totalSessions rounded down (1337 events in 42 sessions → 31); 0 without sessions. */
  avgEventsPerSession: number;
}

export interface CreateSessionOptions {
  appName: string;
  userId: string;
  /** Default: a new `session_<uuid>`. */
  sessionId?: string;
}

export interface GetOrCreateSessionOptions {
  sessionId: string;
  appName: string;
  userId: string;
}

export interface GetSessionEventsOptions {
  /** Only events of these types; all when absent. */
  eventTypes?: readonly MemoryEventType[];
}

export interface RecentEventsOptions {
  /** At most this many events (a whole number ≥ 0). */
  limit: number;
  /** Only events of these types; all when absent. */
  eventTypes?: readonly MemoryEventType[];
}

/** One answer of getRecentEvents: an event and the session that holds it. */
export interface RecentMemoryEvent {
  sessionId: string;
  event: MemoryEvent;
}

export interface ConversationContextOptions {
  /** The newest this-many user_message / agent_response events, oldest first. */
  maxEvents: number;
}

/** The memory contract. Every method is async but createEvent, which only builds a value. */
export interface Memory {
  /** "local", "null", "postgres", "redis" or a third party's name (shown by the endpoints and stats). */
  readonly kind: string;
  /** Events of delegation context a child session inherits (config contextLimit, MEMORY_CONTEXT_LIMIT; default 6). */
  readonly contextLimit: number;
  createSession(options: CreateSessionOptions): Promise<string>;
  getOrCreateSession(options: GetOrCreateSessionOptions): Promise<string>;
  getSession(sessionId: string): Promise<MemorySession | undefined>;
  listSessions(options?: { userId?: string }): Promise<string[]>;
  deleteSession(sessionId: string): Promise<boolean>;
  createEvent<T extends MemoryEventType>(eventType: T, content: MemoryEventContent<T>, metadata?: Record<string, unknown>): MemoryEvent<T>;
  addEvent(sessionId: string, event: MemoryEvent): Promise<boolean>;
  getSessionEvents(sessionId: string, options?: GetSessionEventsOptions): Promise<MemoryEvent[]>;
  buildConversationContext(sessionId: string, options: ConversationContextOptions): Promise<string>;
  cleanupOldSessions(options: { maxAgeHours: number }): Promise<number>;
  getMemoryStats(): Promise<MemoryStats>;
  /**
   * The newest `limit` events still kept, over every session, in the order they were added (for
   * shared memories: the order the server stored them), newest last — without reading every
   * session (the /memory/events endpoint without session_id). Optional: the contract grew it
   * after version 1; `recentMemoryEvents(memory, options)` (@amplifier-ts/memory-base) answers
   * the same for a memory without it, by reading every session.
   */
  getRecentEvents?(options: RecentEventsOptions): Promise<RecentMemoryEvent[]>;
  /** Releases connections and timers; afterwards every call fails with MEMORY/CLOSED. Idempotent. */
  close(): Promise<void>;
}

/** Name of the coordinator capability a mounted memory module offers. */
export const MEMORY_CAPABILITY = "memory";

/** Messages of delegation context a child session inherits (env MEMORY_CONTEXT_LIMIT). */
export const DEFAULT_MEMORY_CONTEXT_LIMIT = 6;
export const DEFAULT_MAX_SESSIONS = 1000;
export const DEFAULT_MAX_EVENTS_PER_SESSION = 500;

const METHODS = [
  "createSession",
  "getOrCreateSession",
  "getSession",
  "listSessions",
  "deleteSession",
  "createEvent",
  "addEvent",
  "getSessionEvents",
  "buildConversationContext",
  "cleanupOldSessions",
  "getMemoryStats",
  "close",
] as const;

/** The methods a value lacks to be a Memory ([] when it has them all). */
export function missingMemoryMethods(value: unknown): string[] {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return [...METHODS];
  return METHODS.filter((m) => typeof (value as Record<string, unknown>)[m] !== "function");
}

export function isMemory(value: unknown): value is Memory {
  return missingMemoryMethods(value).length === 0;
}
