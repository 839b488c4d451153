/**
 * The stored history of one context manager: the messages, their copy/freeze rules, runs and
 * retention, and write-through to a HistoryStore.
 *
 * | rule                | semantics                                                                  |
 * |---------------------|----------------------------------------------------------------------------|
 * | copy on the way in  | a message is validated (schema, JSON values only), copied once through JSON, given an id, timestamp and the current run id, then deep-frozen |
 * | write order         | the store is written BEFORE the in-memory copy changes: a failed write leaves both as they were |
 * | serialized          | mutations run one at a time in call order; a rewrite never interleaves with an append |
 * | never persisted     | ephemeral messages, and every message under retention "none"             |
 * | retention "run"     | ending a run clears its messages                                            |
 * | failure             | a non-Amplifier error from the store becomes STORAGE_WRITE_FAILED           |
 * | unknown rewrite     | a replace, clear or clearRun the store reports STORAGE_WRITE_UNCERTAIN for is not adopted; it is done again (rewrites are idempotent) before the next append or clearRun, then adopted; a new replace or clear supersedes it |
 * | unknown outcome     | an append the store reports STORAGE_WRITE_UNCERTAIN for is not in the history and is held as "in doubt"; the next append of the same message (its id, or — when this history gave it its id — the same content) is its retry and reuses its id, so the store's idempotent append stores it once; any other write first completes the doubted append (the same id again: a no-op where it was stored) and adds it to the history, so history and store agree again; a retry that comes after that completion is a no-op (the last 16 completed are remembered). replace and clear end the doubt (they define the stored list) |
 *
 * `messages` is the live array: it only grows by push until a rewrite replaces it (setMessages,
 * clear, clearRun). Readers that follow it by reference (the search index, the history tally)
 * rely on that to stay O(new messages).
 *
 * Each message it keeps is a held message (held-message.ts: the same object for its whole life,
 * its body packed away once it is far behind the window — cold-history.ts); the stores are handed
 * the plain body. Messages a store loaded lazily are kept as they are.
 */
import { randomUUID } from "node:crypto";
import type { HistoryStore, Message } from "@amplifier-ts/contracts";
import { createError, isAmplifierError, knownFacts, validateMessage, type AmplifierError } from "@amplifier-ts/contracts";
import { freezeDeep } from "@amplifier-ts/window";
import type { ColdHistory } from "./cold-history.js";
import type { RetentionPolicy } from "./context-options.js";
import { holdMessage } from "./held-message.js";

/** What follows every change of the history (the incremental window assembler). */
export interface HistoryFollower {
  append(message: Message): void;
  reset(messages: readonly Message[]): void;
}

export interface StoredHistoryInit {
  readonly moduleName: string;
  readonly sessionId: string;
  /** The agent the session belongs to: every store call carries it (HistoryStore contract v2). */
  readonly agentId: string;
  readonly retention: RetentionPolicy;
  readonly store: HistoryStore | undefined;
  readonly follower: HistoryFollower;
  /** Packs the messages far behind the window (absent: every message stays a parsed object). */
  readonly cold?: ColdHistory | undefined;
  /**
   * Messages already in the store (resume). Each is checked like a new one (validateMessage): one
   * that can no longer be used (written by an older version, another program, a store without
   * validation) is left out of the history and listed in `skipped` — it never stops the session.
   */
  readonly initialMessages?: Message[];
}

/** A resumed message left out of the history: its position in the store's list, its id, why. */
export interface SkippedMessage {
  readonly index: number;
  readonly id: string | undefined;
  readonly error: AmplifierError;
}

export class StoredHistory {
  readonly #init: StoredHistoryInit;
  #messages: Message[] = [];
  #runId: string | undefined;
  #skipped: readonly SkippedMessage[] = [];
  /** Serializes mutations so concurrent callers see call order and never interleave a rewrite. */
  #queue: Promise<unknown> = Promise.resolve();
  /** The scope of every store call. */
  readonly #scope: { agentId: string };
  /** The prepared message whose append had an unknown outcome (STORAGE_WRITE_UNCERTAIN), until it is settled. */
  #doubt: Message | undefined;
  /** A rewrite (replace, clear, clearRun) the store reported STORAGE_WRITE_UNCERTAIN for: done again before the next write. */
  #rewriteInDoubt: (() => Promise<void>) | undefined;
  /** Doubted messages that another write completed (newest last, at most SETTLED_KEPT): a late retry of one is a no-op. */
  #settled: Message[] = [];
  /** Prepared messages whose id (and timestamp) this history made up: a retry of one is recognised by its content. */
  readonly #madeUp = new WeakMap<Message, { id: boolean; timestamp: boolean }>();

  constructor(init: StoredHistoryInit) {
    this.#init = init;
    this.#scope = { agentId: init.agentId };
    if (init.initialMessages?.length) {
      // The store hands over objects nobody else holds (HistoryStore.open): no copy needed, and
      // nested values are frozen lazily when first exposed (message-copy.ts).
      const { usable, skipped } = usableMessages(init.initialMessages);
      this.#messages = init.cold ? usable.map((m) => (knownFacts(m) === undefined ? holdMessage(m) : m)) : usable;
      this.#skipped = skipped;
      init.follower.reset(this.#messages);
      init.cold?.maintain(this.#messages);
    }
  }

  get messages(): Message[] {
    return this.#messages;
  }

  get store(): HistoryStore | undefined {
    return this.#init.store;
  }

  /** Resumed messages left out because they are no longer valid messages (see StoredHistoryInit.initialMessages). */
  get skipped(): readonly SkippedMessage[] {
    return this.#skipped;
  }

  /**
   * A stored-to-be copy of `message`: validated (errors name `path`), deep-copied, given an id,
   * a timestamp and the current run id when it has none, deep-frozen.
   */
  prepare(message: Message, path: string): Message {
    const valid = validateMessage(message, path);
    // Copied through JSON, the stores' own encoding: the live copy is exactly what a resume reads
    // back (undefined properties absent, -0 as 0). validateMessage refused anything JSON changes more.
    const copy = JSON.parse(JSON.stringify(valid)) as Message;
    const metadata = { ...(copy.metadata ?? {}) };
    const madeUp = { id: metadata.id === undefined, timestamp: metadata.timestamp === undefined };
    metadata.id ??= randomUUID();
    metadata.timestamp ??= new Date().toISOString();
    if (metadata.runId === undefined && this.#runId !== undefined) metadata.runId = this.#runId;
    copy.metadata = metadata;
    const prepared = freezeDeep(copy);
    if (madeUp.id) this.#madeUp.set(prepared, madeUp);
    return prepared;
  }

  /** Appends a prepared message (written through first when it persists). */
  append(stored: Message): Promise<void> {
    return this.#serialized(async () => {
      await this.#redoRewrite();
      let message = stored;
      // A late retry of a doubted message that a later write already completed: it is in the history.
      if (this.#settled.some((done) => this.#isRetryOf(stored, done))) return;
      if (this.#doubt !== undefined) {
        if (this.#isRetryOf(stored, this.#doubt)) message = this.#doubt;
        else await this.#settleDoubt();
      }
      await this.#writeThrough(message);
      this.#doubt = undefined;
      this.#push(message);
    });
  }

  /** Replaces the whole history with prepared messages (the store is rewritten atomically). */
  replace(next: Message[]): Promise<void> {
    return this.#serialized(() =>
      this.#rewrite(async () => {
        if (this.store) await this.store.replace(this.#init.sessionId, next.filter((m) => this.#persists(m)), this.#scope);
        this.#doubt = undefined;
        this.#settled = [];
        this.#adopt(next.map((m) => this.#hold(m)));
      }),
    );
  }

  clear(): Promise<void> {
    return this.#serialized(() =>
      this.#rewrite(async () => {
        if (this.store) await this.store.clear(this.#init.sessionId, this.#scope);
        this.#doubt = undefined;
        this.#settled = [];
        this.#adopt([]);
      }),
    );
  }


  // --- runs and retention -----------------------------------------------------------------------

  /** Messages added without a runId from now on belong to this run. */
  startRun(runId: string): string {
    this.#requireRunId(runId, "startRun");
    this.#runId = runId;
    return runId;
  }

  /** Ends a run (the current one by default); with retention "run" its messages are cleared. */
  async endRun(runId: string | undefined = this.#runId): Promise<void> {
    if (runId === undefined) return;
    if (this.#runId === runId) this.#runId = undefined;
    if (this.#init.retention === "run") await this.clearRun(runId);
  }

  async clearRun(runId: string): Promise<void> {
    this.#requireRunId(runId, "clearRun");
    await this.#serialized(async () => {
      await this.#redoRewrite();
      if (this.#doubt !== undefined) await this.#settleDoubt();
      // A packed message answers its run id from its facts (no parse).
      const kept = this.#messages.filter((m) => runIdOf(m) !== runId);
      if (kept.length === this.#messages.length) return;
      await this.#rewrite(async () => {
        if (this.store) await this.store.clearRun(this.#init.sessionId, runId, this.#scope);
        this.#adopt(kept);
      });
    });
  }

  /** Waits for pending writes (their failures were already reported to their callers), then closes the store. */
  async close(): Promise<void> {
    await this.#queue.catch(() => undefined);
    await this.store?.close();
  }

  // --- private ----------------------------------------------------------------------------------

  /**
   * Runs a rewrite (it adopts its result only once the store took it). An unknown outcome leaves
   * the store holding the old list or the new one: the rewrite is kept and done again — rewrites
   * are idempotent — before the next append or clearRun; a new replace or clear supersedes it.
   */
  async #rewrite(run: () => Promise<void>): Promise<void> {
    this.#rewriteInDoubt = undefined;
    try {
      await run();
    } catch (error) {
      if (isAmplifierError(error, "STORAGE_WRITE_UNCERTAIN")) this.#rewriteInDoubt = run;
      throw error;
    }
  }

  async #redoRewrite(): Promise<void> {
    const pending = this.#rewriteInDoubt;
    if (pending !== undefined) await this.#rewrite(pending);
  }

  /** The store's append of a persisting message; an unknown outcome leaves the message in doubt. */
  async #writeThrough(message: Message): Promise<void> {
    if (!this.#persists(message)) return;
    try {
      await this.store!.append(this.#init.sessionId, message, this.#scope);
    } catch (error) {
      if (isAmplifierError(error, "STORAGE_WRITE_UNCERTAIN")) this.#doubt = message;
      throw error;
    }
  }

  #push(message: Message): void {
    const held = this.#hold(message);
    this.#messages.push(held);
    this.#init.follower.append(held);
    this.#init.cold?.maintain(this.#messages);
  }

  /**
   * Completes the doubted append before another write: appended again under its id (a no-op where
   * the first try was stored) and added to the history. Still failing → that error, the doubt kept.
   */
  async #settleDoubt(): Promise<void> {
    const doubted = this.#doubt!;
    await this.#writeThrough(doubted);
    this.#doubt = undefined;
    this.#push(doubted);
    this.#settled = [...this.#settled.slice(1 - SETTLED_KEPT), doubted];
  }

  /** Is `next` a retry of `doubted`: the same id, or — both ids made up here — the same message otherwise? */
  #isRetryOf(next: Message, doubted: Message): boolean {
    if (next.metadata?.id === doubted.metadata?.id) return true;
    const a = this.#madeUp.get(next);
    const b = this.#madeUp.get(doubted);
    if (!a?.id || !b?.id || a.timestamp !== b.timestamp) return false;
    return JSON.stringify(withoutMadeUp(next, a)) === JSON.stringify(withoutMadeUp(doubted, b));
  }

  #adopt(messages: Message[]): void {
    this.#messages = messages;
    this.#init.follower.reset(messages);
    this.#init.cold?.maintain(messages);
  }

  /** The message the history keeps for a prepared one: held (packable) when packing is on. */
  #hold(stored: Message): Message {
    return this.#init.cold ? holdMessage(stored) : stored;
  }

  /** Ephemeral messages and retention "none" never reach the store. */
  #persists(message: Message): boolean {
    return this.store !== undefined && this.#init.retention !== "none" && message.metadata?.ephemeral !== true;
  }

  #requireRunId(runId: unknown, method: string): asserts runId is string {
    if (typeof runId === "string" && runId.length > 0) return;
    throw createError("INVALID_ARGUMENT", `${method} expects a non-empty run id`, {
      module: this.#init.moduleName,
      expected: "a non-empty string",
      given: runId,
    });
  }

  #serialized<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run.catch((error: unknown) => {
      if (isAmplifierError(error)) throw error;
      throw createError("STORAGE_WRITE_FAILED", undefined, { module: this.#init.moduleName, cause: error });
    });
  }
}

/** Completed doubted messages remembered for late retries (uncertain outcomes are rare; retries come soon). */
const SETTLED_KEPT = 16;

/** `message` without the metadata a history made up for it (its id, its timestamp). */
function withoutMadeUp(message: Message, madeUp: { id: boolean; timestamp: boolean }): Message {
  const metadata = { ...message.metadata };
  if (madeUp.id) delete metadata.id;
  if (madeUp.timestamp) delete metadata.timestamp;
  return { ...message, metadata };
}

/** A message's run id; a packed or lazily loaded message answers from its facts (no parse). */
function runIdOf(message: Message): unknown {
  const facts = knownFacts(message);
  return facts ? facts.runId : message.metadata?.runId;
}

/** The resumed messages that are still Messages, and the others with their index, id and error. */
function usableMessages(messages: Message[]): { usable: Message[]; skipped: SkippedMessage[] } {
  const skipped: SkippedMessage[] = [];
  messages.forEach((message, index) => {
    // A lazily loaded message (its facts attached by the store that validated it when it was
    // written) is checked when it is parsed; validating here would parse the whole history.
    if (knownFacts(message) !== undefined) return;
    try {
      validateMessage(message, `initialMessages[${index}]`);
    } catch (error) {
      if (!isAmplifierError(error)) throw error;
      const id = (message as { metadata?: { id?: unknown } } | null)?.metadata?.id;
      skipped.push({ index, id: typeof id === "string" ? id : undefined, error });
    }
  });
  if (skipped.length === 0) return { usable: messages, skipped };
  const left = new Set(skipped.map((s) => s.index));
  return { usable: messages.filter((_, index) => !left.has(index)), skipped };
}
