import {
  checkCreateOptions,
  checkEventTypes,
  checkMaxAgeHours,
  checkMaxEvents,
  checkMemoryEvent,
  checkMemorySessionId,
  checkRecentOptions,
  checkUserFilter,
  CONVERSATION_SPEAKERS,
  createMemoryEvent,
  formatConversation,
  memoryErrors,
  memoryLocalConfigSchema,
  memoryOptions,
  memoryStats,
  sessionsToEvict,
  type ConversationContextOptions,
  type CreateMemorySessionOptions,
  type GetOrCreateSessionOptions,
  type GetSessionEventsOptions,
  type Memory,
  type MemoryEvent,
  type MemoryEventContent,
  type MemoryEventType,
  type MemoryLocalOptions,
  type MemorySession,
  type MemoryStats,
  type RecentEventsOptions,
  type RecentMemoryEvent,
} from "@amplifier-ts/contracts";
import { newestFirstMerge, type Sequenced } from "./newest-first-merge.js";
import { RingBuffer } from "./ring-buffer.js";

const MODULE = "memory-local";

interface LocalSession {
  sessionId: string;
  appName: string;
  userId: string;
  createdAt: Date;
  updatedAt: Date;
  /** Each event with its place in the memory-wide order of additions (getRecentEvents merges by it). */
  events: RingBuffer<Sequenced<MemoryEvent>>;
}

/**
 * Memory in this process (the seed's LocalMemory). Lost when the process ends, not shared with
 * other processes: use memory-postgres or memory-redis for that.
 *
 * | concern | how |
 * |---|---|
 * | events of a session | a ring buffer of maxEventsPerSession (default 500): O(1) append, the oldest evicted in O(1) |
 * | sessions | a Map in creation order; creating one beyond maxSessions (default 1000) first removes the oldest 10 % (at least one) by creation |
 * | totals | counted as events come and go, so getMemoryStats is O(1) |
 * | getRecentEvents | every event is numbered as it is added; a k-way merge walks back from the newest of each session's ring buffer (newest-first-merge.ts): O(sessions + limit · log sessions) |
 * | stored values | an event is deep-copied (structuredClone) when added and again each time it is read (getSession, getSessionEvents, getRecentEvents): neither the caller's objects nor what a reader is handed share anything with memory, as with memory-postgres and memory-redis, which store JSON. One clone per event in and per event read |
 */
export class LocalMemory implements Memory {
  readonly kind = "local";
  readonly contextLimit: number;
  readonly maxSessions: number;
  readonly maxEventsPerSession: number;
  private readonly sessions = new Map<string, LocalSession>();
  private totalEvents = 0;
  /** The number of the next added event (memory-wide order of additions). */
  private nextSeq = 0;
  private closed = false;

  constructor(options: MemoryLocalOptions = {}) {
    const resolved = memoryOptions(memoryLocalConfigSchema, options, MODULE);
    this.contextLimit = resolved.contextLimit;
    this.maxSessions = resolved.maxSessions;
    this.maxEventsPerSession = resolved.maxEventsPerSession;
  }

  async createSession(options: CreateMemorySessionOptions): Promise<string> {
    this.live();
    const { appName, userId, sessionId } = checkCreateOptions(options, MODULE, "createSession");
    if (this.sessions.has(sessionId)) throw memoryErrors.create("SESSION_EXISTS", `session "${sessionId}" already exists`, { module: MODULE, path: "createSession.sessionId", given: sessionId, hint: "use getOrCreateSession to reuse it" });
    this.add(appName, userId, sessionId);
    return sessionId;
  }

  async getOrCreateSession(options: GetOrCreateSessionOptions): Promise<string> {
    this.live();
    const { appName, userId, sessionId } = checkCreateOptions(options, MODULE, "getOrCreateSession", true);
    if (!this.sessions.has(sessionId)) this.add(appName, userId, sessionId);
    return sessionId;
  }

  async getSession(sessionId: string): Promise<MemorySession | undefined> {
    this.live();
    const session = this.sessions.get(checkMemorySessionId(sessionId, MODULE));
    if (!session) return undefined;
    const { events, createdAt, updatedAt, ...rest } = session;
    return { ...rest, createdAt: new Date(createdAt), updatedAt: new Date(updatedAt), events: events.toArray().map((e) => structuredClone(e.value)) };
  }

  async listSessions(options?: { userId?: string }): Promise<string[]> {
    this.live();
    const userId = checkUserFilter(options, MODULE);
    const ids: string[] = [];
    for (const session of this.sessions.values()) if (userId === undefined || session.userId === userId) ids.push(session.sessionId);
    return ids;
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    this.live();
    return this.remove(checkMemorySessionId(sessionId, MODULE));
  }

  createEvent<T extends MemoryEventType>(eventType: T, content: MemoryEventContent<T>, metadata?: Record<string, unknown>): MemoryEvent<T> {
    return createMemoryEvent(eventType, content, metadata);
  }

  async addEvent(sessionId: string, event: MemoryEvent): Promise<boolean> {
    this.live();
    const session = this.sessions.get(checkMemorySessionId(sessionId, MODULE));
    checkMemoryEvent(event, "event");
    if (!session) return false;
    const evicted = session.events.push({ seq: this.nextSeq++, value: structuredClone(event) });
    if (!evicted) this.totalEvents++;
    session.updatedAt = new Date();
    return true;
  }

  async getSessionEvents(sessionId: string, options?: GetSessionEventsOptions): Promise<MemoryEvent[]> {
    this.live();
    const session = this.sessions.get(checkMemorySessionId(sessionId, MODULE));
    const types = checkEventTypes(options, MODULE);
    if (!session) return [];
    const events = session.events.toArray().map((e) => e.value);
    return (types === undefined ? events : events.filter((e) => types.has(e.eventType))).map((e) => structuredClone(e));
  }

  async buildConversationContext(sessionId: string, options: ConversationContextOptions): Promise<string> {
    this.live();
    const session = this.sessions.get(checkMemorySessionId(sessionId, MODULE));
    const maxEvents = checkMaxEvents(options, MODULE);
    if (!session) return "";
    // Walk back from the newest only as far as needed: O(maxEvents + skipped events), not O(session).
    const picked: MemoryEvent[] = [];
    for (let age = 0; picked.length < maxEvents; age++) {
      const event = session.events.fromNewest(age)?.value;
      if (event === undefined) break;
      if (CONVERSATION_SPEAKERS[event.eventType] !== undefined) picked.push(event);
    }
    return formatConversation(picked.reverse(), maxEvents);
  }

  async cleanupOldSessions(options: { maxAgeHours: number }): Promise<number> {
    this.live();
    const cutoff = checkMaxAgeHours(options, MODULE).getTime();
    let removed = 0;
    for (const session of [...this.sessions.values()]) {
      if (session.updatedAt.getTime() <= cutoff && this.remove(session.sessionId)) removed++;
    }
    return removed;
  }

  async getMemoryStats(): Promise<MemoryStats> {
    this.live();
    return memoryStats(this.sessions.size, this.totalEvents);
  }

  async getRecentEvents(options: RecentEventsOptions): Promise<RecentMemoryEvent[]> {
    this.live();
    const { limit, types } = checkRecentOptions(options, MODULE);
    const buffers = [...this.sessions.values()].map((s) => [s.sessionId, s.events] as [string, RingBuffer<Sequenced<MemoryEvent>>]);
    return newestFirstMerge(buffers, limit, (event) => types === undefined || types.has(event.eventType)).map(({ key, value }) => ({ sessionId: key, event: structuredClone(value) }));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.sessions.clear();
    this.totalEvents = 0;
  }

  // ---- private helpers ----

  private add(appName: string, userId: string, sessionId: string): void {
    if (this.sessions.size >= this.maxSessions) this.evictOldest(sessionsToEvict(this.maxSessions));
    const now = new Date();
    this.sessions.set(sessionId, { sessionId, appName, userId, createdAt: now, updatedAt: new Date(now), events: new RingBuffer(this.maxEventsPerSession) });
  }

  /** The Map iterates in insertion order: its first keys are the oldest sessions. */
  private evictOldest(count: number): void {
    let left = count;
    for (const id of this.sessions.keys()) {
      if (left-- <= 0) break;
      this.remove(id);
    }
  }

  private remove(sessionId: string): boolean {
    const session = this.sessions.get(sessionId);
    if (!session) return false;
    this.totalEvents -= session.events.size;
    return this.sessions.delete(sessionId);
  }

  private live(): void {
    if (this.closed) throw memoryErrors.create("CLOSED", undefined, { module: MODULE });
  }
}
