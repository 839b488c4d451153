import type { HistoryStore, OpenedSession, ReadOptions, SessionSummary } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { stringify } from "safe-stable-stringify";
import { createError } from "@amplifier-ts/contracts";
import { assertSessionId } from "./session-id.js";

const MODULE = "stores/hybrid";

/** Events a hybrid store reports (context-persistent forwards them to the hook bus). */
export type HybridStoreEvent =
  | { name: "context:storage_degraded"; payload: { reason: string; store: string; detail: Record<string, unknown> } }
  | { name: "context:storage_restored"; payload: { store: string; reason: string; detail: Record<string, unknown> } };

export interface HybridStoreOptions {
  /** The cache of recent messages (Redis). */
  hot: HistoryStore;
  /** The record (PostgreSQL): complete, durable. */
  cold: HistoryStore;
  /** Messages of a session kept hot (the hot store's cap; rebuilt from cold). Default 200. */
  recentN?: number;
  /** While the hot store is down, try it again at most this often. Default 1000 ms. */
  probeIntervalMs?: number;
  onEvent?: (event: HybridStoreEvent) => void | Promise<void>;
}

/**
 * A HistoryStore over two: a HOT one for recent turns (Redis) and a COLD one that is the record
 * (PostgreSQL) — the core contexts seed's hybrid, as a store.
 *
 * | operation | cold (record) | hot (cache) |
 * |---|---|---|
 * | append, appendMany, replace, clear, clearRun, deleteSession | first; its failure rejects the call (nothing is acknowledged that the record does not hold) | after, best effort: a failure marks the store DEGRADED |
 * | read, count, listSessions, open | the answer (complete history) | at open, the session's hot list is checked and rebuilt from cold when it is behind |
 * | `recent` (the `hybrid` strategy's hot side) | when degraded | the last messages, fast |
 *
 * Degraded: the first hot failure emits `context:storage_degraded { store: "hybrid", reason,
 * detail: { hot, sessionId } }`; reads and writes go on against cold. At most every
 * `probeIntervalMs` a write or a hot-side read (`recent`, `hotView`) tries the hot store again; when it answers, the hot lists of the
 * sessions written meanwhile are rebuilt from cold (their last recentN) and
 * `context:storage_restored { store: "hybrid" }` is emitted.
 */
export class HybridStore implements HistoryStore {
  readonly kind = "hybrid";
  readonly hot: HistoryStore;
  readonly cold: HistoryStore;
  readonly recentN: number;
  private readonly probeIntervalMs: number;
  private readonly onEvent: HybridStoreOptions["onEvent"];
  private degradedSince: number | undefined;
  private lastProbe = 0;
  /** Sessions whose hot list missed writes while degraded. */
  private readonly stale = new Set<string>();

  constructor(options: HybridStoreOptions) {
    if (!isStore(options?.hot) || !isStore(options?.cold)) {
      throw createError("INVALID_ARGUMENT", "a hybrid store needs a hot and a cold HistoryStore", { module: MODULE, path: "store", expected: "{ hot: HistoryStore, cold: HistoryStore }", given: options });
    }
    this.hot = options.hot;
    this.cold = options.cold;
    this.recentN = whole(options.recentN, "recentN") ?? 200;
    this.probeIntervalMs = whole(options.probeIntervalMs, "probeIntervalMs") ?? 1_000;
    this.onEvent = options.onEvent;
  }

  /** True while the hot store is being bypassed. */
  get degraded(): boolean {
    return this.degradedSince !== undefined;
  }

  async open(sessionId: string): Promise<OpenedSession> {
    const opened = await this.cold.open(sessionId);
    await this.hotStep(sessionId, async () => {
      if (!(await this.hotMatches(sessionId, opened.messages))) await this.hot.replace(sessionId, opened.messages.slice(-this.recentN));
    });
    return opened;
  }

  async append(sessionId: string, message: Message): Promise<void> {
    await this.cold.append(sessionId, message);
    await this.hotStep(sessionId, () => this.hot.append(sessionId, message));
  }

  async appendMany(sessionId: string, messages: Message[]): Promise<void> {
    await this.cold.appendMany(sessionId, messages);
    if (messages.length > 0) await this.hotStep(sessionId, () => this.hot.appendMany(sessionId, messages.slice(-this.recentN)));
  }

  read(sessionId: string, options?: ReadOptions): Promise<Message[]> {
    return this.cold.read(sessionId, options);
  }

  count(sessionId: string): Promise<number> {
    return this.cold.count(sessionId);
  }

  async replace(sessionId: string, messages: Message[]): Promise<void> {
    await this.cold.replace(sessionId, messages);
    await this.hotStep(sessionId, () => this.hot.replace(sessionId, messages.slice(-this.recentN)));
  }

  async clear(sessionId: string): Promise<void> {
    await this.cold.clear(sessionId);
    await this.hotStep(sessionId, () => this.hot.clear(sessionId));
  }

  async clearRun(sessionId: string, runId: string): Promise<void> {
    await this.cold.clearRun(sessionId, runId);
    // The hot tail may now lack messages older than the run: rebuild it from the record.
    await this.hotStep(sessionId, async () => this.hot.replace(sessionId, await this.coldTail(sessionId)));
  }

  listSessions(): Promise<SessionSummary[]> {
    return this.cold.listSessions();
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.cold.deleteSession(sessionId);
    await this.hotStep(sessionId, () => this.hot.deleteSession(sessionId));
  }

  async closeSession(sessionId: string): Promise<void> {
    await this.cold.closeSession(sessionId);
    await this.hot.closeSession(sessionId).catch(() => undefined);
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.hot.close(), this.cold.close()]);
  }

  /**
   * The last `n` messages of a session: from the hot store, or from cold while degraded (what
   * the `hybrid` strategy reads as its hot side). Never throws because of the hot store.
   */
  async recent(sessionId: string, n: number): Promise<Message[]> {
    assertSessionId(sessionId, MODULE);
    if (this.degraded) await this.probe(sessionId);
    if (!this.degraded) {
      try {
        const count = await this.hot.count(sessionId);
        return await this.hot.read(sessionId, { offset: Math.max(0, count - n) });
      } catch (error) {
        await this.degrade(sessionId, error);
      }
    }
    const count = await this.cold.count(sessionId);
    return this.cold.read(sessionId, { offset: Math.max(0, count - n) });
  }

  /** A read-only HistoryStore view whose reads are `recent()`'s: the hot side for the hybrid strategy. */
  hotView(): Pick<HistoryStore, "count" | "read"> {
    return {
      count: async (sessionId) => {
        if (this.degraded && !(await this.probe(sessionId))) return this.cold.count(sessionId);
        return this.hot.count(sessionId).catch(async (error: unknown) => (await this.degrade(sessionId, error), this.cold.count(sessionId)));
      },
      read: async (sessionId, options) => {
        if (this.degraded && !(await this.probe(sessionId))) return this.cold.read(sessionId, options);
        try {
          return await this.hot.read(sessionId, options);
        } catch (error) {
          await this.degrade(sessionId, error);
          return this.cold.read(sessionId, options);
        }
      },
    };
  }

  // --- internals ---------------------------------------------------------------------------------

  /** One hot-store step: skipped (session marked stale) while degraded, except for a periodic probe that may restore. */
  private async hotStep(sessionId: string, step: () => Promise<void>): Promise<void> {
    if (this.degraded) {
      this.stale.add(sessionId);
      await this.probe(sessionId); // when it restores, every stale session (this one included) is rebuilt from the record
      return;
    }
    try {
      await step();
    } catch (error) {
      this.stale.add(sessionId);
      await this.degrade(sessionId, error);
    }
  }

  /** While degraded, at most every probeIntervalMs (writes and reads alike): try the hot store again; true when restored. */
  private async probe(sessionId: string): Promise<boolean> {
    if (Date.now() - this.lastProbe < this.probeIntervalMs) return false;
    this.lastProbe = Date.now();
    this.stale.add(sessionId);
    return this.restore();
  }

  private async degrade(sessionId: string, error: unknown): Promise<void> {
    this.stale.add(sessionId);
    if (this.degradedSince !== undefined) return;
    this.degradedSince = Date.now();
    this.lastProbe = Date.now();
    await this.emit({
      name: "context:storage_degraded",
      payload: {
        store: "hybrid",
        reason: `the hot store (${this.hot.kind}) failed; reads and writes go on against the cold store (${this.cold.kind}): ${(error as Error)?.message ?? String(error)}`,
        detail: { hot: this.hot.kind, cold: this.cold.kind, sessionId },
      },
    });
  }

  /** Rebuilds the stale sessions' hot lists from cold; true when the hot store answered for all. */
  private async restore(): Promise<boolean> {
    const sessions = [...this.stale];
    try {
      for (const id of sessions) {
        await this.hot.replace(id, await this.coldTail(id));
        this.stale.delete(id);
      }
    } catch {
      return false;
    }
    const since = this.degradedSince ?? Date.now();
    this.degradedSince = undefined;
    await this.emit({
      name: "context:storage_restored",
      payload: {
        store: "hybrid",
        reason: `the hot store (${this.hot.kind}) answers again; ${sessions.length} session${sessions.length === 1 ? "" : "s"} rebuilt from the cold store (${this.cold.kind})`,
        detail: { hot: this.hot.kind, rebuilt: sessions, degradedMs: Date.now() - since },
      },
    });
    return true;
  }

  private async coldTail(sessionId: string): Promise<Message[]> {
    const count = await this.cold.count(sessionId);
    return this.cold.read(sessionId, { offset: Math.max(0, count - this.recentN) });
  }

  /** The hot list holds exactly the record's last min(count, recentN) messages (by count and the last id). */
  private async hotMatches(sessionId: string, record: readonly Message[]): Promise<boolean> {
    const expected = Math.min(record.length, this.recentN);
    const count = await this.hot.count(sessionId);
    if (count !== expected) return false;
    if (expected === 0) return true;
    const [last] = await this.hot.read(sessionId, { offset: count - 1 });
    // Canonical JSON: a jsonb record (PostgreSQL) reorders keys.
    return stringify(last) === stringify(record.at(-1));
  }

  private async emit(event: HybridStoreEvent): Promise<void> {
    try {
      await this.onEvent?.(event);
    } catch {
      // An observer's failure never breaks the store.
    }
  }
}

function isStore(value: unknown): value is HistoryStore {
  return typeof (value as HistoryStore | undefined)?.append === "function" && typeof (value as HistoryStore).read === "function";
}

function whole(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value;
  throw createError("INVALID_ARGUMENT", `store.${name} must be a whole number > 0`, { module: MODULE, path: `store.${name}`, expected: "an integer > 0", given: value });
}
