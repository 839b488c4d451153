import type { MemoryEvent, MemorySession } from "@amplifier-ts/contracts";
import { MemoryBase } from "@amplifier-ts/memory-base";
import { memoryNullConfigSchema, type MemoryNullOptions } from "./memory-null-config.js";

/**
 * Every operation succeeds and nothing is stored — for stateless agents,
 * tight resources, and tests without memory overhead. Arguments are still checked (MemoryBase: a
 * bad call is a bug whichever memory is mounted), and the answers are what an empty memory says:
 *
 * | call | answers |
 * |---|---|
 * | createSession, getOrCreateSession | the (given or new) id |
 * | addEvent, deleteSession | true (succeeded, stored nothing) |
 * | getSession | undefined; listSessions [], getSessionEvents [], getRecentEvents [], buildConversationContext "" |
 * | cleanupOldSessions | 0; getMemoryStats all zeros |
 * | close | nothing to release; calls after it still succeed |
 */
export class NullMemory extends MemoryBase<MemoryNullOptions> {
  readonly kind = "null";

  constructor(options: MemoryNullOptions = {}) {
    super("memory-null", memoryNullConfigSchema, options);
  }

  /** "Every operation succeeds" holds after close too: nothing is held, so nothing refuses. */
  override async close(): Promise<void> {}

  protected async insertSession(): Promise<boolean> {
    return true;
  }

  protected async readSession(): Promise<MemorySession | undefined> {
    return undefined;
  }

  protected async readSessionIds(): Promise<string[]> {
    return [];
  }

  protected async removeSession(): Promise<boolean> {
    return true;
  }

  protected async appendEvent(): Promise<boolean> {
    return true;
  }

  protected async readEvents(): Promise<MemoryEvent[]> {
    return [];
  }

  protected async removeSessionsChangedBefore(): Promise<number> {
    return 0;
  }

  protected async countSessionsAndEvents(): Promise<{ sessions: number; events: number }> {
    return { sessions: 0, events: 0 };
  }
}
