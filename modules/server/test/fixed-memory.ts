import type { Memory, MemoryEvent, RecentMemoryEvent } from "@amplifier-ts/contracts";

/**
 * A Memory holding fixed sessions of user messages, for the server's own tests: the routes only
 * list and read, so this package's tests need no memory module. Writes (and stats) refuse.
 */
export function fixedMemory(sessions: Record<string, string[]> = {}): Memory {
  const base = Date.parse("2026-01-01T00:00:00Z");
  let added = 0;
  const events = new Map<string, MemoryEvent[]>();
  const recent: RecentMemoryEvent[] = [];
  for (const [sessionId, texts] of Object.entries(sessions)) {
    events.set(sessionId, []);
    for (const text of texts) {
      const event: MemoryEvent = { eventId: `e${added}`, timestamp: new Date(base + added++), eventType: "user_message", content: text, metadata: {} };
      events.get(sessionId)!.push(event);
      recent.push({ sessionId, event });
    }
  }
  const readOnly = async (): Promise<never> => {
    throw new Error("fixedMemory only lists and reads");
  };
  return {
    kind: "fixed",
    contextLimit: 6,
    createSession: readOnly,
    getOrCreateSession: readOnly,
    getSession: async () => undefined,
    listSessions: async () => [...events.keys()],
    deleteSession: readOnly,
    createEvent: () => {
      throw new Error("fixedMemory only lists and reads");
    },
    addEvent: readOnly,
    getSessionEvents: async (sessionId) => [...(events.get(sessionId) ?? [])],
    buildConversationContext: async () => "",
    cleanupOldSessions: async () => 0,
    getMemoryStats: readOnly,
    getRecentEvents: async ({ limit }) => recent.slice(-limit),
    close: async () => undefined,
  };
}
