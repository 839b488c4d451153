import type { HistoryScope, HistoryStore, OpenedSession, ReadOptions, SessionAttachments, SessionSummary } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { stringify } from "safe-stable-stringify";
import { createError, hasSessionAttachments } from "@amplifier-ts/contracts";
import { agentIdOf, agentSessionKey } from "./agent-id.js";
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
 * (PostgreSQL), as one store.
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
 *
 * Agents: every call passes its scope to both stores; a stale session is remembered with its agent.
 *
 * Session attachments (SessionAttachments) are the record's: present when the cold store keeps
 * them, read and written there only (the hot store is a cache of messages), deleted with the
 * session by the cold store's deleteSession.
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
  /** Sessions whose hot list missed writes while degraded, by agentSessionKey. */
  private readonly stale = new Map<string, Stale>();
  /** The cold store's attachments (absent when it has none: `hasSessionAttachments` then says false). */
  readonly readAttachment?: SessionAttachments["readAttachment"];
  readonly writeAttachment?: SessionAttachments["writeAttachment"];

  constructor(options: HybridStoreOptions) {
    if (!isStore(options?.hot) || !isStore(options?.cold)) {
      throw createError("INVALID_ARGUMENT", "a hybrid store needs a hot and a cold HistoryStore", { module: MODULE, path: "store", expected: "{ hot: HistoryStore, cold: HistoryStore }", given: options });
    }
    this.hot = options.hot;
    this.cold = options.cold;
    this.recentN = whole(options.recentN, "recentN") ?? 200;
    this.probeIntervalMs = whole(options.probeIntervalMs, "probeIntervalMs") ?? 1_000;
    this.onEvent = options.onEvent;
    const cold = this.cold;
    if (hasSessionAttachments(cold)) {
      this.readAttachment = async (sessionId, name, scope) => cold.readAttachment(sessionId, name, this.scopeOf(scope));
      this.writeAttachment = async (sessionId, name, text, scope) => cold.writeAttachment(sessionId, name, text, this.scopeOf(scope));
    }
  }

  /** True while the hot store is being bypassed. */
  get degraded(): boolean {
    return this.degradedSince !== undefined;
  }

  async open(sessionId: string, scope?: HistoryScope): Promise<OpenedSession> {
    const on = this.scopeOf(scope);
    const opened = await this.cold.open(sessionId, on);
    await this.hotStep(sessionId, on, async () => {
      if (!(await this.hotMatches(sessionId, on, opened.messages))) await this.hot.replace(sessionId, opened.messages.slice(-this.recentN), on);
    });
    return opened;
  }

  async append(sessionId: string, message: Message, scope?: HistoryScope): Promise<void> {
    const on = this.scopeOf(scope);
    await this.cold.append(sessionId, message, on);
    await this.hotStep(sessionId, on, () => this.hot.append(sessionId, message, on));
  }

  async appendMany(sessionId: string, messages: Message[], scope?: HistoryScope): Promise<void> {
    const on = this.scopeOf(scope);
    await this.cold.appendMany(sessionId, messages, on);
    if (messages.length > 0) await this.hotStep(sessionId, on, () => this.hot.appendMany(sessionId, messages.slice(-this.recentN), on));
  }

  read(sessionId: string, options?: ReadOptions): Promise<Message[]> {
    return this.cold.read(sessionId, options);
  }

  count(sessionId: string, scope?: HistoryScope): Promise<number> {
    return this.cold.count(sessionId, scope);
  }

  async replace(sessionId: string, messages: Message[], scope?: HistoryScope): Promise<void> {
    const on = this.scopeOf(scope);
    await this.cold.replace(sessionId, messages, on);
    await this.hotStep(sessionId, on, () => this.hot.replace(sessionId, messages.slice(-this.recentN), on));
  }

  async clear(sessionId: string, scope?: HistoryScope): Promise<void> {
    const on = this.scopeOf(scope);
    await this.cold.clear(sessionId, on);
    await this.hotStep(sessionId, on, () => this.hot.clear(sessionId, on));
  }

  async clearRun(sessionId: string, runId: string, scope?: HistoryScope): Promise<void> {
    const on = this.scopeOf(scope);
    await this.cold.clearRun(sessionId, runId, on);
    // The hot tail may now lack messages older than the run: rebuild it from the record.
    await this.hotStep(sessionId, on, async () => this.hot.replace(sessionId, await this.coldTail(sessionId, on), on));
  }

  listSessions(scope?: HistoryScope): Promise<SessionSummary[]> {
    return this.cold.listSessions(scope);
  }

  async deleteSession(sessionId: string, scope?: HistoryScope): Promise<void> {
    const on = this.scopeOf(scope);
    await this.cold.deleteSession(sessionId, on);
    await this.hotStep(sessionId, on, () => this.hot.deleteSession(sessionId, on));
  }

  async closeSession(sessionId: string, scope?: HistoryScope): Promise<void> {
    const on = this.scopeOf(scope);
    await this.cold.closeSession(sessionId, on);
    await this.hot.closeSession(sessionId, on).catch(() => undefined);
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.hot.close(), this.cold.close()]);
  }

  /**
   * The last `n` messages of a session: from the hot store, or from cold while degraded (what
   * the `hybrid` strategy reads as its hot side). Never throws because of the hot store.
   */
  async recent(sessionId: string, n: number, scope?: HistoryScope): Promise<Message[]> {
    assertSessionId(sessionId, MODULE);
    const on = this.scopeOf(scope);
    if (this.degraded) await this.probe(sessionId, on);
    if (!this.degraded) {
      try {
        const count = await this.hot.count(sessionId, on);
        return await this.hot.read(sessionId, { ...on, offset: Math.max(0, count - n) });
      } catch (error) {
        await this.degrade(sessionId, on, error);
      }
    }
    const count = await this.cold.count(sessionId, on);
    return this.cold.read(sessionId, { ...on, offset: Math.max(0, count - n) });
  }

  /**
   * A read-only HistoryStore view whose reads are `recent()`'s: the hot side for the hybrid
   * strategy. With a scope, the view reads that agent's sessions (the strategy knows no agents).
   */
  hotView(scope?: HistoryScope): Pick<HistoryStore, "count" | "read"> {
    const on = this.scopeOf(scope);
    return {
      count: async (sessionId) => {
        if (this.degraded && !(await this.probe(sessionId, on))) return this.cold.count(sessionId, on);
        return this.hot.count(sessionId, on).catch(async (error: unknown) => (await this.degrade(sessionId, on, error), this.cold.count(sessionId, on)));
      },
      read: async (sessionId, options) => {
        const scoped = { ...options, ...on };
        if (this.degraded && !(await this.probe(sessionId, on))) return this.cold.read(sessionId, scoped);
        try {
          return await this.hot.read(sessionId, scoped);
        } catch (error) {
          await this.degrade(sessionId, on, error);
          return this.cold.read(sessionId, scoped);
        }
      },
    };
  }

  // --- internals ---------------------------------------------------------------------------------

  /** One hot-store step: skipped (session marked stale) while degraded, except for a periodic probe that may restore. */
  private async hotStep(sessionId: string, on: AgentScope, step: () => Promise<void>): Promise<void> {
    if (this.degraded) {
      this.markStale(sessionId, on);
      await this.probe(sessionId, on); // when it restores, every stale session (this one included) is rebuilt from the record
      return;
    }
    try {
      await step();
    } catch (error) {
      this.markStale(sessionId, on);
      await this.degrade(sessionId, on, error);
    }
  }

  /** While degraded, at most every probeIntervalMs (writes and reads alike): try the hot store again; true when restored. */
  private async probe(sessionId: string, on: AgentScope): Promise<boolean> {
    if (Date.now() - this.lastProbe < this.probeIntervalMs) return false;
    this.lastProbe = Date.now();
    this.markStale(sessionId, on);
    return this.restore();
  }

  private markStale(sessionId: string, on: AgentScope): void {
    this.stale.set(agentSessionKey(on.agentId, sessionId), { sessionId, on });
  }

  /** The scope both stores get: the agent resolved (and checked) once. */
  private scopeOf(scope: HistoryScope | undefined): AgentScope {
    return { agentId: agentIdOf(scope, MODULE) };
  }

  private async degrade(sessionId: string, on: AgentScope, error: unknown): Promise<void> {
    this.markStale(sessionId, on);
    if (this.degradedSince !== undefined) return;
    this.degradedSince = Date.now();
    this.lastProbe = Date.now();
    await this.emit({
      name: "context:storage_degraded",
      payload: {
        store: "hybrid",
        reason: `the hot store (${this.hot.kind}) failed; reads and writes go on against the cold store (${this.cold.kind}): ${(error as Error)?.message ?? String(error)}`,
        detail: { hot: this.hot.kind, cold: this.cold.kind, sessionId, agentId: on.agentId },
      },
    });
  }

  /** Rebuilds the stale sessions' hot lists from cold; true when the hot store answered for all. */
  private async restore(): Promise<boolean> {
    const entries = [...this.stale];
    const sessions = entries.map(([, { sessionId }]) => sessionId);
    try {
      for (const [key, { sessionId, on }] of entries) {
        await this.hot.replace(sessionId, await this.coldTail(sessionId, on), on);
        this.stale.delete(key);
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

  private async coldTail(sessionId: string, on: AgentScope): Promise<Message[]> {
    const count = await this.cold.count(sessionId, on);
    return this.cold.read(sessionId, { ...on, offset: Math.max(0, count - this.recentN) });
  }

  /** The hot list holds exactly the record's last min(count, recentN) messages (by count and the last id). */
  private async hotMatches(sessionId: string, on: AgentScope, record: readonly Message[]): Promise<boolean> {
    const expected = Math.min(record.length, this.recentN);
    const count = await this.hot.count(sessionId, on);
    if (count !== expected) return false;
    if (expected === 0) return true;
    const [last] = await this.hot.read(sessionId, { ...on, offset: count - 1 });
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

/** A scope whose agent has been resolved. */
interface AgentScope {
  agentId: string;
}

interface Stale {
  sessionId: string;
  on: AgentScope;
}

function isStore(value: unknown): value is HistoryStore {
  return typeof (value as HistoryStore | undefined)?.append === "function" && typeof (value as HistoryStore).read === "function";
}

function whole(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value;
  throw createError("INVALID_ARGUMENT", `store.${name} must be a whole number > 0`, { module: MODULE, path: `store.${name}`, expected: "an integer > 0", given: value });
}
