import { randomUUID } from "node:crypto";
import { checkMemoryEvent, type MemoryEvent, type MemoryEventContent, type MemoryEventType, type MemoryStats } from "@amplifier-ts/contracts";

/**
 * The small answers every memory gives the same way, one place per rule:
 *
 * | rule | here |
 * |---|---|
 * | a new event: `event_<uuid>`, now, content and metadata JSON values | createMemoryEvent |
 * | which events make the conversation, and how it reads | CONVERSATION_SPEAKERS, formatConversation |
 * | how many sessions go when maxSessions is exceeded: 10 %, at least one | sessionsToEvict |
 * | avgEventsPerSession: rounded down | memoryStats |
 */

/**
 * A new event, not stored yet (Memory.createEvent): `event_<uuid>`, now, the content and metadata
 * as given. Content and metadata must be JSON values — they are stored by other processes and
 * served over HTTP — else INVALID_ARGUMENT naming the field.
 */
export function createMemoryEvent<T extends MemoryEventType>(eventType: T, content: MemoryEventContent<T>, metadata: Record<string, unknown> = {}): MemoryEvent<T> {
  const event = { eventId: `event_${randomUUID()}`, timestamp: new Date(), eventType, content, metadata };
  checkMemoryEvent(event, "createEvent", "INVALID_ARGUMENT");
  return event;
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
