import type { Memory, MemoryEvent, RecentEventsOptions, RecentMemoryEvent } from "@amplifier-ts/contracts";
import { checkRecentOptions } from "./memory-args.js";

/**
 * The newest `limit` events over every session, newest last, from any memory:
 *
 * | the memory | how |
 * |---|---|
 * | has getRecentEvents (every built-in, every MemoryBase) | asks it: the memory keeps a global order (memory-local: a merge over the sessions' ring buffers; memory-postgres: one indexed query; memory-redis: a sorted set) |
 * | lacks it (a memory written for version 1 of the contract) | reads every session — O(all events), fine for small memories; ordered by event time, ties in session order |
 */
export async function recentMemoryEvents(memory: Memory, options: RecentEventsOptions): Promise<RecentMemoryEvent[]> {
  if (typeof memory.getRecentEvents === "function") return memory.getRecentEvents(options);
  const { limit, types } = checkRecentOptions(options, memory.kind);
  if (limit === 0) return [];
  return newestOverSessions(
    await memory.listSessions(),
    (sessionId) => memory.getSessionEvents(sessionId, types === undefined ? undefined : { eventTypes: [...types] }),
    limit,
  );
}

/**
 * The newest `limit` events of the given sessions by event time (ties in session order), newest
 * last: the answer of a memory that keeps no memory-wide order of additions.
 */
export async function newestOverSessions(sessionIds: readonly string[], eventsOf: (sessionId: string) => Promise<MemoryEvent[]>, limit: number): Promise<RecentMemoryEvent[]> {
  const picked: { at: number; order: number; event: MemoryEvent; sessionId: string }[] = [];
  let order = 0;
  for (const sessionId of sessionIds) {
    for (const event of (await eventsOf(sessionId)).slice(-limit)) picked.push({ at: event.timestamp.getTime(), order: order++, event, sessionId });
  }
  picked.sort((a, b) => a.at - b.at || a.order - b.order);
  return picked.slice(-limit).map(({ sessionId, event }) => ({ sessionId, event }));
}
