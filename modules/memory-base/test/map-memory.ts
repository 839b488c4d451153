import type { MemoryEvent, MemorySession } from "@amplifier-ts/contracts";
import { MemoryBase, sessionsToEvict, type MemoryLimits, type NewMemorySession } from "../index.js";
import { z } from "zod";

const mapMemoryConfig = z.strictObject({ contextLimit: z.number().optional(), maxSessions: z.number().optional(), maxEventsPerSession: z.number().optional() });

type Stored = Omit<MemorySession, "events"> & { events: MemoryEvent[] };

/**
 * The least a backend writes on MemoryBase: storage primitives over a Map, nothing else — no
 * argument check, no close handling, no getRecentEvents (the base's default reads every session).
 * `calls` counts the primitives that ran, so a test sees what reached the storage.
 */
export class MapMemory extends MemoryBase {
  readonly kind = "map";
  calls = 0;
  private readonly data = new Map<string, Stored>();

  constructor(limits: Partial<MemoryLimits> = {}) {
    super("map-memory", mapMemoryConfig, limits);
  }

  protected async insertSession({ sessionId, appName, userId }: NewMemorySession): Promise<boolean> {
    this.calls++;
    if (this.data.has(sessionId)) return false;
    const oldest = [...this.data.keys()];
    if (oldest.length >= this.maxSessions) for (const id of oldest.slice(0, sessionsToEvict(this.maxSessions))) this.data.delete(id);
    this.data.set(sessionId, { sessionId, appName, userId, createdAt: new Date(), updatedAt: new Date(), events: [] });
    return true;
  }

  protected async readSession(sessionId: string): Promise<MemorySession | undefined> {
    this.calls++;
    const stored = this.data.get(sessionId);
    return stored && structuredClone(stored);
  }

  protected async readSessionIds(userId: string | undefined): Promise<string[]> {
    this.calls++;
    return [...this.data.values()].filter((s) => userId === undefined || s.userId === userId).map((s) => s.sessionId);
  }

  protected async removeSession(sessionId: string): Promise<boolean> {
    this.calls++;
    return this.data.delete(sessionId);
  }

  protected async appendEvent(sessionId: string, event: MemoryEvent): Promise<boolean> {
    this.calls++;
    const stored = this.data.get(sessionId);
    if (!stored) return false;
    stored.events = [...stored.events, structuredClone(event)].slice(-this.maxEventsPerSession);
    stored.updatedAt = new Date();
    return true;
  }

  protected async readEvents(sessionId: string, types: ReadonlySet<string> | undefined): Promise<MemoryEvent[]> {
    this.calls++;
    const events = this.data.get(sessionId)?.events ?? [];
    return structuredClone(events.filter((e) => types === undefined || types.has(e.eventType)));
  }

  protected async removeSessionsChangedBefore(cutoff: Date): Promise<number> {
    this.calls++;
    const old = [...this.data.values()].filter((s) => s.updatedAt <= cutoff);
    for (const s of old) this.data.delete(s.sessionId);
    return old.length;
  }

  protected async countSessionsAndEvents(): Promise<{ sessions: number; events: number }> {
    this.calls++;
    let events = 0;
    for (const s of this.data.values()) events += s.events.length;
    return { sessions: this.data.size, events };
  }
}
