import {
  checkMemoryEvent,
  memoryErrors,
  type ConversationContextOptions,
  type CreateMemorySessionOptions,
  type GetOrCreateSessionOptions,
  type GetSessionEventsOptions,
  type Memory,
  type MemoryEvent,
  type MemoryEventContent,
  type MemoryEventType,
  type MemorySession,
  type MemoryStats,
  type RecentEventsOptions,
  type RecentMemoryEvent,
} from "@amplifier-ts/contracts";
import type { ZodType } from "zod";
import { checkCreateOptions, checkEventTypes, checkMaxAgeHours, checkMaxEvents, checkMemorySessionId, checkRecentOptions, checkUserFilter } from "./memory-args.js";
import { memoryOptions, type MemoryLimits } from "./memory-limits.js";
import { createMemoryEvent, formatConversation, memoryStats } from "./memory-rules.js";
import { newestOverSessions } from "./recent-events.js";

/** A session to create: its arguments, checked (the id given or generated). */
export interface NewMemorySession {
  sessionId: string;
  appName: string;
  userId: string;
}

/**
 * The memory contract (contracts/MEMORY.md) over a backend's storage primitives. The base owns
 * everything the contract says the same way for every memory; a backend stores and reads.
 *
 * | the base | the backend (protected primitives) |
 * |---|---|
 * | config checked against the module's schema, limits' defaults (`options`, contextLimit, maxSessions, maxEventsPerSession) | — |
 * | every argument checked once, before a primitive runs: INVALID_SESSION_ID / INVALID_ARGUMENT naming the argument | primitives get checked values only |
 * | after close(): MEMORY/CLOSED on every call; close idempotent | release(): connections, timers, data |
 * | createSession: MEMORY/SESSION_EXISTS when the id is taken | insertSession → false when taken (evicting the oldest sessions past maxSessions, sessionsToEvict) |
 * | getOrCreateSession | ensureSession (default: insertSession, its answer ignored) |
 * | getSession, listSessions, deleteSession | readSession, readSessionIds, removeSession |
 * | createEvent: `event_<uuid>`, JSON content and metadata | — |
 * | addEvent: the event checked | appendEvent → false for an unknown session (trimming to maxEventsPerSession) |
 * | getSessionEvents | readEvents(id, types or undefined for all) |
 * | buildConversationContext: the `User:` / `Assistant:` text | readConversation (default: readEvents of every type; formatConversation keeps the conversation) |
 * | cleanupOldSessions: the cut-off time | removeSessionsChangedBefore |
 * | getMemoryStats: the rounded-down average | countSessionsAndEvents |
 * | getRecentEvents: limit 0 or no types → [] | readRecentEvents (default, for a backend without a memory-wide order: every session read, ordered by event time) |
 */
export abstract class MemoryBase<Options extends Partial<MemoryLimits> = Partial<MemoryLimits>> implements Memory {
  abstract readonly kind: string;
  readonly contextLimit: number;
  readonly maxSessions: number;
  readonly maxEventsPerSession: number;
  /** The module's name in errors ("memory-local", …). */
  protected readonly module: string;
  /** The config as checked, with the limits' defaults. */
  protected readonly options: Options & MemoryLimits;
  private closed = false;

  protected constructor(module: string, configSchema: ZodType<Options>, config: unknown) {
    this.module = module;
    this.options = memoryOptions(configSchema, config, module);
    this.contextLimit = this.options.contextLimit;
    this.maxSessions = this.options.maxSessions;
    this.maxEventsPerSession = this.options.maxEventsPerSession;
  }

  async createSession(options: CreateMemorySessionOptions): Promise<string> {
    this.live();
    const session = checkCreateOptions(options, this.module, "createSession");
    if (!(await this.insertSession(session))) {
      throw memoryErrors.create("SESSION_EXISTS", `session "${session.sessionId}" already exists`, { module: this.module, path: "createSession.sessionId", given: session.sessionId, hint: "use getOrCreateSession to reuse it" });
    }
    return session.sessionId;
  }

  async getOrCreateSession(options: GetOrCreateSessionOptions): Promise<string> {
    this.live();
    const session = checkCreateOptions(options, this.module, "getOrCreateSession", true);
    await this.ensureSession(session);
    return session.sessionId;
  }

  async getSession(sessionId: string): Promise<MemorySession | undefined> {
    this.live();
    return this.readSession(checkMemorySessionId(sessionId, this.module));
  }

  async listSessions(options?: { userId?: string }): Promise<string[]> {
    this.live();
    return this.readSessionIds(checkUserFilter(options, this.module));
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    this.live();
    return this.removeSession(checkMemorySessionId(sessionId, this.module));
  }

  createEvent<T extends MemoryEventType>(eventType: T, content: MemoryEventContent<T>, metadata?: Record<string, unknown>): MemoryEvent<T> {
    return createMemoryEvent(eventType, content, metadata);
  }

  async addEvent(sessionId: string, event: MemoryEvent): Promise<boolean> {
    this.live();
    const id = checkMemorySessionId(sessionId, this.module);
    checkMemoryEvent(event, "event");
    return this.appendEvent(id, event);
  }

  async getSessionEvents(sessionId: string, options?: GetSessionEventsOptions): Promise<MemoryEvent[]> {
    this.live();
    const id = checkMemorySessionId(sessionId, this.module);
    return this.readEvents(id, checkEventTypes(options, this.module));
  }

  async buildConversationContext(sessionId: string, options: ConversationContextOptions): Promise<string> {
    this.live();
    const id = checkMemorySessionId(sessionId, this.module);
    const maxEvents = checkMaxEvents(options, this.module);
    return formatConversation(await this.readConversation(id, maxEvents), maxEvents);
  }

  async cleanupOldSessions(options: { maxAgeHours: number }): Promise<number> {
    this.live();
    return this.removeSessionsChangedBefore(checkMaxAgeHours(options, this.module));
  }

  async getMemoryStats(): Promise<MemoryStats> {
    this.live();
    const { sessions, events } = await this.countSessionsAndEvents();
    return memoryStats(sessions, events);
  }

  async getRecentEvents(options: RecentEventsOptions): Promise<RecentMemoryEvent[]> {
    this.live();
    const { limit, types } = checkRecentOptions(options, this.module);
    if (limit === 0 || types?.size === 0) return [];
    return this.readRecentEvents(limit, types);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.release();
  }

  // ---- storage primitives: arguments checked, the memory open ----

  /** Creates the session, first evicting the oldest past maxSessions; false (nothing changed) when the id is taken. */
  protected abstract insertSession(session: NewMemorySession): Promise<boolean>;
  /** The session with its events, oldest first, or undefined. */
  protected abstract readSession(sessionId: string): Promise<MemorySession | undefined>;
  /** Session ids in creation order, of one user when `userId` is given. */
  protected abstract readSessionIds(userId: string | undefined): Promise<string[]>;
  /** true when something was removed. */
  protected abstract removeSession(sessionId: string): Promise<boolean>;
  /** Stores the event, keeping the newest maxEventsPerSession; false (nothing stored) for an unknown session. */
  protected abstract appendEvent(sessionId: string, event: MemoryEvent): Promise<boolean>;
  /** The session's events of the given types (all when undefined), oldest first; [] for an unknown session. */
  protected abstract readEvents(sessionId: string, types: ReadonlySet<string> | undefined): Promise<MemoryEvent[]>;
  /** Removes the sessions last changed at or before `cutoff` and counts them. */
  protected abstract removeSessionsChangedBefore(cutoff: Date): Promise<number>;
  protected abstract countSessionsAndEvents(): Promise<{ sessions: number; events: number }>;

  /** Creates the session unless it exists. A backend overrides it where a lookup is cheaper than an insert. */
  protected async ensureSession(session: NewMemorySession): Promise<void> {
    await this.insertSession(session);
  }

  /**
   * Events from which formatConversation takes the newest `maxEvents` conversation lines, oldest
   * first. A backend overrides it to read only those (CONVERSATION_SPEAKERS' types, newest first).
   */
  protected readConversation(sessionId: string, _maxEvents: number): Promise<MemoryEvent[]> {
    return this.readEvents(sessionId, undefined);
  }

  /**
   * The newest `limit` (> 0) events of the given types over every session, newest last. The
   * default reads every session (O(all events)) and orders by event time; a backend that keeps a
   * memory-wide order of additions overrides it.
   */
  protected async readRecentEvents(limit: number, types: ReadonlySet<string> | undefined): Promise<RecentMemoryEvent[]> {
    return newestOverSessions(await this.readSessionIds(undefined), (sessionId) => this.readEvents(sessionId, types), limit);
  }

  /** Releases connections, timers and data; runs once, at the first close(). */
  protected async release(): Promise<void> {}

  // ---- private helpers ----

  private live(): void {
    if (this.closed) throw memoryErrors.create("CLOSED", undefined, { module: this.module });
  }
}
