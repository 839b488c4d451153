import type { MemoryEvent, MemorySession, RecentMemoryEvent } from "@amplifier-ts/contracts";
import { CONVERSATION_SPEAKERS, MemoryBase, sessionsToEvict, type NewMemorySession } from "@amplifier-ts/memory-base";
import { memoryLocalConfigSchema, type MemoryLocalOptions } from "./memory-local-config.js";
import { newestFirstMerge, type Sequenced } from "./newest-first-merge.js";
import { RingBuffer } from "./ring-buffer.js";

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
 * Memory in this process. Lost when the process ends, not shared with
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
export class LocalMemory extends MemoryBase<MemoryLocalOptions> {
  readonly kind = "local";
  private readonly sessions = new Map<string, LocalSession>();
  private totalEvents = 0;
  /** The number of the next added event (memory-wide order of additions). */
  private nextSeq = 0;

  constructor(options: MemoryLocalOptions = {}) {
    super("memory-local", memoryLocalConfigSchema, options);
  }

  protected async insertSession({ appName, userId, sessionId }: NewMemorySession): Promise<boolean> {
    if (this.sessions.has(sessionId)) return false;
    if (this.sessions.size >= this.maxSessions) this.evictOldest(sessionsToEvict(this.maxSessions));
    const now = new Date();
    this.sessions.set(sessionId, { sessionId, appName, userId, createdAt: now, updatedAt: new Date(now), events: new RingBuffer(this.maxEventsPerSession) });
    return true;
  }

  protected async readSession(sessionId: string): Promise<MemorySession | undefined> {
    const session = this.sessions.get(sessionId);
    if (!session) return undefined;
    const { events, createdAt, updatedAt, ...rest } = session;
    return { ...rest, createdAt: new Date(createdAt), updatedAt: new Date(updatedAt), events: events.toArray().map((e) => structuredClone(e.value)) };
  }

  protected async readSessionIds(userId: string | undefined): Promise<string[]> {
    const ids: string[] = [];
    for (const session of this.sessions.values()) if (userId === undefined || session.userId === userId) ids.push(session.sessionId);
    return ids;
  }

  protected async removeSession(sessionId: string): Promise<boolean> {
    return this.remove(sessionId);
  }

  protected async appendEvent(sessionId: string, event: MemoryEvent): Promise<boolean> {
    const session = this.sessions.get(sessionId);
    if (!session) return false;
    const evicted = session.events.push({ seq: this.nextSeq++, value: structuredClone(event) });
    if (!evicted) this.totalEvents++;
    session.updatedAt = new Date();
    return true;
  }

  protected async readEvents(sessionId: string, types: ReadonlySet<string> | undefined): Promise<MemoryEvent[]> {
    const session = this.sessions.get(sessionId);
    if (!session) return [];
    const events = session.events.toArray().map((e) => e.value);
    return (types === undefined ? events : events.filter((e) => types.has(e.eventType))).map((e) => structuredClone(e));
  }

  /** Walks back from the newest only as far as needed: O(maxEvents + skipped events), not O(session). */
  protected override async readConversation(sessionId: string, maxEvents: number): Promise<MemoryEvent[]> {
    const session = this.sessions.get(sessionId);
    const picked: MemoryEvent[] = [];
    for (let age = 0; session !== undefined && picked.length < maxEvents; age++) {
      const event = session.events.fromNewest(age)?.value;
      if (event === undefined) break;
      if (CONVERSATION_SPEAKERS[event.eventType] !== undefined) picked.push(event);
    }
    return picked.reverse();
  }

  protected async removeSessionsChangedBefore(cutoff: Date): Promise<number> {
    let removed = 0;
    for (const session of [...this.sessions.values()]) {
      if (session.updatedAt.getTime() <= cutoff.getTime() && this.remove(session.sessionId)) removed++;
    }
    return removed;
  }

  protected async countSessionsAndEvents(): Promise<{ sessions: number; events: number }> {
    return { sessions: this.sessions.size, events: this.totalEvents };
  }

  protected override async readRecentEvents(limit: number, types: ReadonlySet<string> | undefined): Promise<RecentMemoryEvent[]> {
    const buffers = [...this.sessions.values()].map((s) => [s.sessionId, s.events] as [string, RingBuffer<Sequenced<MemoryEvent>>]);
    return newestFirstMerge(buffers, limit, (event) => types === undefined || types.has(event.eventType)).map(({ key, value }) => ({ sessionId: key, event: structuredClone(value) }));
  }

  protected override async release(): Promise<void> {
    this.sessions.clear();
    this.totalEvents = 0;
  }

  // ---- private helpers ----

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
}
