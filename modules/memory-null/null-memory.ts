import {
  checkCreateOptions,
  checkEventTypes,
  checkMaxAgeHours,
  checkMaxEvents,
  checkMemoryEvent,
  checkMemorySessionId,
  checkRecentOptions,
  checkUserFilter,
  createMemoryEvent,
  memoryLocalConfigSchema,
  memoryOptions,
  memoryStats,
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

const MODULE = "memory-null";

/**
 * The seed's NullMemory: every operation succeeds and nothing is stored — for stateless agents,
 * tight resources, and tests without memory overhead. Arguments are still checked (a bad call is
 * a bug whichever memory is mounted), and the answers are what an empty memory says:
 *
 * | call | answers |
 * |---|---|
 * | createSession, getOrCreateSession | the (given or new) id |
 * | addEvent, deleteSession | true (succeeded, stored nothing) |
 * | getSession | undefined; listSessions [], getSessionEvents [], getRecentEvents [], buildConversationContext "" |
 * | cleanupOldSessions | 0; getMemoryStats all zeros |
 */
export class NullMemory implements Memory {
  readonly kind = "null";
  readonly contextLimit: number;

  constructor(options: MemoryLocalOptions = {}) {
    this.contextLimit = memoryOptions(memoryLocalConfigSchema, options, MODULE).contextLimit;
  }

  async createSession(options: CreateMemorySessionOptions): Promise<string> {
    return checkCreateOptions(options, MODULE, "createSession").sessionId;
  }

  async getOrCreateSession(options: GetOrCreateSessionOptions): Promise<string> {
    return checkCreateOptions(options, MODULE, "getOrCreateSession", true).sessionId;
  }

  async getSession(sessionId: string): Promise<MemorySession | undefined> {
    checkMemorySessionId(sessionId, MODULE);
    return undefined;
  }

  async listSessions(options?: { userId?: string }): Promise<string[]> {
    checkUserFilter(options, MODULE);
    return [];
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    checkMemorySessionId(sessionId, MODULE);
    return true;
  }

  createEvent<T extends MemoryEventType>(eventType: T, content: MemoryEventContent<T>, metadata?: Record<string, unknown>): MemoryEvent<T> {
    return createMemoryEvent(eventType, content, metadata);
  }

  async addEvent(sessionId: string, event: MemoryEvent): Promise<boolean> {
    checkMemorySessionId(sessionId, MODULE);
    checkMemoryEvent(event, "event");
    return true;
  }

  async getSessionEvents(sessionId: string, options?: GetSessionEventsOptions): Promise<MemoryEvent[]> {
    checkMemorySessionId(sessionId, MODULE);
    checkEventTypes(options, MODULE);
    return [];
  }

  async buildConversationContext(sessionId: string, options: ConversationContextOptions): Promise<string> {
    checkMemorySessionId(sessionId, MODULE);
    checkMaxEvents(options, MODULE);
    return "";
  }

  async cleanupOldSessions(options: { maxAgeHours: number }): Promise<number> {
    checkMaxAgeHours(options, MODULE);
    return 0;
  }

  async getMemoryStats(): Promise<MemoryStats> {
    return memoryStats(0, 0);
  }

  async getRecentEvents(options: RecentEventsOptions): Promise<RecentMemoryEvent[]> {
    checkRecentOptions(options, MODULE);
    return [];
  }

  async close(): Promise<void> {}
}
