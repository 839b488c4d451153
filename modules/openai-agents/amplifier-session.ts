import type { AgentInputItem, Session } from "@openai/agents-core";
import type { HistoryScope, HistoryStore, Message } from "@amplifier-ts/contracts";
import { createError, isAmplifierError } from "@amplifier-ts/contracts";
import { loadHistoryStore, parseStoreUrl, type HistoryStoreConfig } from "@amplifier-ts/stores";
import { getTokenCounter, type TokenCounter } from "@amplifier-ts/tokens";
import type { FitReport } from "@amplifier-ts/window";
import { assertStorableItems } from "./agent-items.js";
import { HistoryFitter } from "./history-fitter.js";
import { ItemMessages } from "./item-messages.js";
import { MODULE, sessionError } from "./session-errors.js";
import { resolveSessionOptions, type AmplifierSessionOptions, type ResolvedSessionOptions } from "./session-options.js";
import { idOf, itemOf, storedMessages } from "./stored-items.js";
import { newestItems, windowItems } from "./window-items.js";

/**
 * A Session of the OpenAI Agents SDK (@openai/agents-core `Session`) kept in an amplifier-ts
 * HistoryStore (JSONL, PostgreSQL, Redis, or any registered one), whose `getItems()` returns the
 * window that fits the model: the newest turns whole, tool calls with all their results,
 * reasoning with the answer it precedes, the cut kept between reads so the prompt cache holds.
 *
 * | method | does | store calls |
 * |---|---|---|
 * | `getItems(limit?)` | the fitted window's items, stored order (`limit`: at most its newest `limit`, from a message start: no result without its call) | none after the first read |
 * | `getStoredItems(limit?)` | the whole stored history (its last `limit`), unfitted | none after the first read |
 * | `addItems(items)` | appends, idempotent: a retry after a failure stores each item once | `appendMany` |
 * | `popItem()` | removes and returns the newest item | `replace` |
 * | `clearSession()` | removes every item | `clear` |
 * | `replaceHistoryWithCompaction(items)` | the history becomes `items`, atomically (the Runner's compaction) | `replace` |
 * | `close()` | lets the store go (closes it when the session built it); idempotent | `closeSession` / `close` |
 *
 * Items come back exactly as they were given (as JSON), fresh copies on every read. One
 * AmplifierSession writes a session at a time (a JSONL session is locked while open); a new
 * AmplifierSession on the same id and store continues it after the first one closed.
 * Operations run one after another in call order, also when the caller does not await them;
 * arguments are checked (and items copied) when the method is called, errors are rejections.
 */
export class AmplifierSession implements Session {
  readonly sessionId: string;
  readonly #options: AmplifierSessionOptions;
  readonly #resolved: ResolvedSessionOptions;
  readonly #scope: HistoryScope;
  readonly #counter: TokenCounter;
  #store: HistoryStore | undefined;
  #state: SessionState | undefined;
  /** An append whose outcome the store could not tell (STORAGE_WRITE_UNCERTAIN), settled before anything else. */
  #doubt: Message[] | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(options: AmplifierSessionOptions) {
    this.#resolved = resolveSessionOptions(options);
    this.#options = options;
    this.sessionId = options.sessionId;
    this.#scope = options.agentId === undefined ? {} : { agentId: options.agentId };
    this.#counter = getTokenCounter(this.#resolved.model);
  }

  /** The budget the history window fits (budget − instructions − tools − turnReserve), in the model's tokens. */
  get historyBudget(): number {
    const { budget, turnReserve, instructions } = this.#resolved;
    const instructionTokens = instructions ? this.#counter.countMessage({ role: "system", content: instructions }) : 0;
    return budget - turnReserve - instructionTokens;
  }

  /**
   * The report of the window getItems() returns now: its tokens and budget, and per stored message
   * (this session's messages: an answer's items are one) whether it was kept, cut or dropped, and
   * why. Costs O(history): for inspection, not for every turn.
   */
  async windowReport(): Promise<FitReport> {
    return this.#run(async (state) => state.fitter.explain(state.view.fitted));
  }

  async getSessionId(): Promise<string> {
    this.#assertOpen();
    return this.sessionId;
  }

  async getItems(limit?: number): Promise<AgentInputItem[]> {
    checkLimit(limit);
    return this.#run(async (state) => {
      if (limit === 0) return [];
      const messages = state.fitter.fit(state.view.fitted);
      const items = windowItems(messages, state.view);
      return structuredClone(limit === undefined ? items : newestItems(items, limit));
    });
  }

  async getStoredItems(limit?: number): Promise<AgentInputItem[]> {
    checkLimit(limit);
    return this.#run(async (state) => {
      if (limit === 0) return [];
      const items = state.view.items;
      return structuredClone(limit === undefined ? items : items.slice(-limit));
    });
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    assertStorableItems(items);
    const given = items.slice();
    return this.#run(async (state, store) => {
      if (given.length === 0) return;
      // A doubted append was made after the same tail: the same items again are its retry.
      const doubted = this.#doubt;
      if (doubted && sameIds(doubted, storedMessages(given, idOf(state.stored.at(-1))))) return this.#settle(state, store);
      await this.#settle(state, store);
      await this.#append(state, store, storedMessages(given, idOf(state.stored.at(-1))));
    }, { settle: false });
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    return this.#run(async (state, store) => {
      const last = state.stored.at(-1);
      if (last === undefined) return undefined;
      const kept = state.stored.slice(0, -1);
      await store.replace(this.sessionId, kept, this.#scope);
      this.#reset(state, kept);
      return structuredClone(itemOf(last, this.sessionId, kept.length));
    });
  }

  async clearSession(): Promise<void> {
    return this.#run(async (state, store) => {
      await store.clear(this.sessionId, this.#scope);
      this.#doubt = undefined;
      this.#reset(state, []);
    }, { settle: false });
  }

  /**
   * The Runner's replacement of the history by a compaction item and its kept suffix (the SDK calls
   * it when a run produced a `compaction` item): one atomic `replace`, so a failure leaves the old
   * history whole — without it the SDK clears the session, adds the items, and on failure restores
   * what `getItems()` returned, which here is the window, not the history.
   */
  async replaceHistoryWithCompaction(items: AgentInputItem[]): Promise<void> {
    assertStorableItems(items);
    const given = items.slice();
    return this.#run(async (state, store) => {
      const messages = storedMessages(given, undefined);
      await store.replace(this.sessionId, messages, this.#scope);
      this.#doubt = undefined;
      this.#reset(state, messages);
    }, { settle: false });
  }

  /** Lets the store go: closes it when the session built it from a config or URL, else releases this session in it. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return this.#queue.then(() => undefined);
    this.#closed = true;
    const pending = this.#queue.catch(() => undefined);
    this.#queue = pending.then(async () => {
      const store = this.#store;
      this.#store = undefined;
      this.#state = undefined;
      if (!store) return;
      if (this.#ownsStore) await store.close();
      else await store.closeSession(this.sessionId, this.#scope);
    });
    return this.#queue.then(() => undefined);
  }

  get #ownsStore(): boolean {
    const store = this.#options.store;
    return typeof store === "string" || !isHistoryStore(store);
  }

  /** Runs `work` after every earlier call, with the session loaded (and a doubted append settled). */
  #run<T>(work: (state: SessionState, store: HistoryStore) => Promise<T>, options: { settle?: boolean } = {}): Promise<T> {
    this.#assertOpen();
    const next = this.#queue.catch(() => undefined).then(async () => {
      this.#assertOpen();
      const { state, store } = await this.#load();
      if (options.settle !== false) await this.#settle(state, store);
      return work(state, store);
    });
    this.#queue = next;
    return next;
  }

  async #load() {
    if (!this.#store) {
      const given = this.#options.store;
      this.#store = isHistoryStore(given) ? given : await loadHistoryStore(typeof given === "string" ? parseStoreUrl(given) : (given as HistoryStoreConfig));
    }
    const store = this.#store;
    if (!this.#state) {
      let opened;
      try {
        opened = await store.open(this.sessionId, this.#scope);
      } catch (error) {
        if (this.#ownsStore) {
          this.#store = undefined;
          await store.close().catch(() => undefined);
        }
        throw error;
      }
      const stored = opened.messages;
      const view = new ItemMessages(stored.map((m, i) => itemOf(m, this.sessionId, i)));
      const fitter = new HistoryFitter({ budget: this.historyBudget, model: this.#resolved.model, tools: this.#resolved.tools });
      this.#state = { view, stored, fitter };
    }
    return { state: this.#state, store };
  }

  async #append(state: SessionState, store: HistoryStore, messages: Message[]): Promise<void> {
    try {
      await store.appendMany(this.sessionId, messages, this.#scope);
    } catch (error) {
      if (isAmplifierError(error, "STORAGE_WRITE_UNCERTAIN")) this.#doubt = messages;
      throw error;
    }
    this.#adopt(state, messages);
  }

  /** Appends the doubted messages again under their ids (a no-op where they were stored), then adopts them. */
  async #settle(state: SessionState, store: HistoryStore): Promise<void> {
    const doubted = this.#doubt;
    if (!doubted) return;
    await store.appendMany(this.sessionId, doubted, this.#scope);
    this.#doubt = undefined;
    this.#adopt(state, doubted);
  }

  #adopt(state: SessionState, messages: Message[]): void {
    state.stored.push(...messages);
    state.view.append(messages.map((m, i) => itemOf(m, this.sessionId, state.stored.length - messages.length + i)));
  }

  #reset(state: SessionState, stored: Message[]): void {
    state.stored = stored;
    state.view = new ItemMessages(stored.map((m, i) => itemOf(m, this.sessionId, i)));
    state.fitter.reset();
  }

  #assertOpen(): void {
    if (this.#closed) throw sessionError("SESSION_CLOSED", `Session "${this.sessionId}" has been closed; open a new AmplifierSession to continue it`, { given: this.sessionId });
  }
}

interface SessionState {
  view: ItemMessages;
  stored: Message[];
  fitter: HistoryFitter;
}

function checkLimit(limit: unknown): void {
  if (limit !== undefined && (typeof limit !== "number" || !Number.isInteger(limit) || limit < 0)) {
    throw createError("INVALID_ARGUMENT", "AmplifierSession: limit must be an integer ≥ 0", { module: MODULE, path: "limit", expected: "an integer ≥ 0, or nothing for the whole window", given: limit });
  }
}

function sameIds(a: readonly Message[], b: readonly Message[]): boolean {
  return a.length === b.length && a.every((m, i) => idOf(m) === idOf(b[i]));
}

function isHistoryStore(value: unknown): value is HistoryStore {
  const candidate = value as Partial<HistoryStore> | null;
  return typeof candidate === "object" && candidate !== null && typeof candidate.appendMany === "function" && typeof candidate.open === "function";
}
