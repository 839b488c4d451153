/**
 * Spilling: a single input larger than a share of the window (a 5 MB log, a grep over a tree) is
 * written once to the session's blob store; the stored history keeps the whole message
 * (getMessages() unchanged, invariant 5) and every window — and every strategy of the pipeline,
 * summarizers included — sees a copy whose text is a query-aware excerpt (spill-excerpt.ts) with
 * the handle and how to read more (the read_stored_result tool).
 *
 * | rule                 | semantics                                                                 |
 * |----------------------|---------------------------------------------------------------------------|
 * | what                 | a tool result (role tool, or a user message carrying tool_result blocks) or a user message, per config `spill.roles`, counting more than `share` × the request's budget; never a critical message (kept verbatim) |
 * | how far back         | new messages, and older ones only as far back as a window can reach (a lazily resumed history is not parsed beyond it); under a compaction pipeline the whole history (strategies read all of it) |
 * | when                 | at the first request that sees it (the budget is the request's); each message once |
 * | the copy             | same role, id, pairing ids and non-text blocks; the largest text part holds the excerpt, other long text parts a marker; counted exactly like any message (invariant 1) |
 * | blob                 | the message's text parts joined by "\n", UTF-8, under `spill-<24 hex of sha256(id, text)>`: the same message always has the same handle, so a resumed session finds its blobs and writes nothing again |
 * | query                | the latest user prompt and the arguments of the call the result answers, when it is spilled; the excerpt then stays byte-identical (the prompt cache keeps its prefix). With `refocus: true`, a new prompt that changes the terms excerpts the window's spilled messages again (their bytes are already stored) |
 * | event                | `context:spill` once per message, when its blob is written (a resume that finds it stored emits nothing) |
 * | resume               | an excerpt the last process made (carried-spills.ts) is taken as it was — same handle, same count of the message, same counter and excerpt budget — so the copy is byte-identical and neither excerpted nor tokenized again; else excerpted anew |
 * | store failure        | the message is not spilled (the window cuts it to fit instead, as without spilling) and `context:storage_degraded` says why; tried again after a history rewrite |
 *
 * It follows the stored history as its HistoryFollower and keeps `view`: the history with each
 * spilled message replaced by its copy. A replacement rolls the incremental assembler back to
 * that position (WindowAssembler.truncate) and gives the view a new identity, so a pipeline
 * reads it as a new source.
 */
import { createHash } from "node:crypto";
import type { BlobStore, HookBusContract, Message } from "@amplifier-ts/contracts";
import { callArguments, callsOf, createError, defineErrorCodes, forEachContentPart, hasTurnContent, isAmplifierError, isCritical, joinText, knownFacts, resultIdsOf, storedSize, textLength } from "@amplifier-ts/contracts";
import type { TokenCounter } from "@amplifier-ts/tokens";
import { withMark, type SpillMark, type WindowAssembler, type WindowDecision } from "@amplifier-ts/window";
import { counterKey, type CarriedSpill, type CarriedSpills } from "./carried-spills.js";
import type { SpillOptions } from "./context-options.js";
import { excerptOf, queryTerms } from "./spill-excerpt.js";
import type { HistoryFollower } from "./stored-history.js";
import type { MessageExplanation } from "./window-explanation.js";

export const spillErrors = defineErrorCodes("SPILL", {
  UNKNOWN_HANDLE: "No spilled result is stored under this handle",
});

/** Where spilled text goes: a blob store and the key prefix of this agent's session in it ("" when the store is the session's own). */
export interface SpillStore {
  readonly blobs: BlobStore;
  readonly keyPrefix: string;
}

/** A spilled message, as explain and the tool see it. */
export interface SpillRecord {
  readonly handle: string;
  readonly messageId: string;
  readonly role: "tool" | "user";
  readonly toolCallId?: string;
  /** Tokens of the whole message, and of the copy the window carries. */
  readonly tokens: number;
  excerptTokens: number;
  /** UTF-8 bytes and characters of the stored text. */
  readonly bytes: number;
  readonly chars: number;
  /** The search terms of the call it answers. */
  readonly callTerms: readonly string[];
  /** The terms its excerpt was made for (a new prompt may change them). */
  queryKey: string;
  excerpt: Message;
  /** The stored message (the history holds it anyway): a new prompt excerpts it again. */
  readonly original: Message;
}

export interface SpilledHistoryInit {
  readonly moduleName: string;
  readonly options: SpillOptions | false;
  /** Made when the first message is spilled (no folder, no connection before that). */
  readonly store: () => SpillStore;
  readonly follower: HistoryFollower;
  readonly assembler: WindowAssembler;
  readonly hooks: HookBusContract | undefined;
  /** Excerpts an earlier process made (carried-spills.ts), by message id: a resume uses them instead of excerpting again. */
  readonly carried?: ReadonlyMap<string, CarriedSpill>;
}

export const HANDLE_PATTERN = /^spill-[0-9a-f]{24}$/;
/** A text part shorter than this stays in the copy as it is. */
const KEPT_PART_CHARS = 200;
const CONTENT_TYPE = "text/plain; charset=utf-8";
/** Tokens of text an excerpt must have room for beside its header; a smaller budget spills nothing. */
const MIN_EXCERPT_BODY = 48;
/**
 * Fewer characters than a spilled text can have, conservatively: it counted more than the
 * threshold, at least twice an excerpt that holds the header (well over 50 tokens) and
 * MIN_EXCERPT_BODY, so over 196 tokens; at most 3 tokens a UTF-16 unit plus 64 (the bound in
 * #prepare) makes that over 44 characters. A handle's lookup in the history skips shorter messages, unparsed.
 */
const MIN_SPILLED_CHARS = 32;
/** How far back the call a result answers is looked for. */
const CALL_LOOKBACK = 256;

export class SpilledHistory implements HistoryFollower {
  readonly #init: SpilledHistoryInit;
  #view: Message[] = [];
  /**
   * Positions [#low, #high) were looked at. New messages extend #high; #low moves back only as far
   * as a window could reach (#tailTokens, the examined messages' tokens as windows carry them,
   * still within the budget) — so a lazily resumed history is not parsed beyond the window.
   */
  #low = 0;
  #high = 0;
  #tailTokens = 0;
  /**
   * New positions examined without a count (their tokens are not in #tailTokens yet), as runs
   * [from, to): a turn's message is counted here only when the walk back needs the exact tail
   * (the counted tail is within a request's budget) — else the window counts it, or bounds it.
   */
  #uncounted: [number, number][] = [];
  /** The counter of the last prepare (countUncounted counts with it). */
  #lastCounter: TokenCounter | undefined;
  /** Spilled messages by id, and where each sits in the view. */
  readonly #records = new Map<string, SpillRecord>();
  readonly #positions = new Map<string, number>();
  /** The values of #positions as a set (spilledPositions), made when first asked after a change: not once per window. */
  #positionSet: ReadonlySet<number> | undefined;
  /** Ids whose spill failed (the store refused): not tried again until the history is rewritten. */
  readonly #failed = new Set<string>();
  /** The first position of the last window (no-pipeline): spilled messages before it are not excerpted again. */
  #windowStart = 0;
  #store: SpillStore | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  /** Excerpts of an earlier process not taken yet (each is taken once, by its message's first spill). */
  readonly #carried: Map<string, CarriedSpill>;
  /** How each record's excerpt was made (what carriedSpills exports), by message id. */
  readonly #made = new Map<string, Omit<CarriedSpill, "messageId" | "handle" | "tokens" | "queryKey">>();

  constructor(init: SpilledHistoryInit) {
    this.#init = init;
    this.#carried = new Map(init.carried ?? []);
  }

  /** The history as windows and strategies see it. */
  get view(): readonly Message[] {
    return this.#view;
  }

  get enabled(): boolean {
    return this.#init.options !== false;
  }

  append(message: Message): void {
    this.#view.push(message);
    this.#init.follower.append(message);
  }

  reset(messages: readonly Message[]): void {
    this.#forgetRemoved(messages);
    this.#view = messages.slice();
    this.#low = this.#high = this.#view.length;
    this.#tailTokens = 0;
    this.#uncounted = [];
    this.#windowStart = 0;
    this.#positions.clear();
    this.#positionSet = undefined;
    this.#failed.clear();
    this.#init.follower.reset(this.#view);
  }

  /**
   * Resolves once the blobs of the messages a rewrite removed are deleted (#forgetRemoved) and a
   * spill in flight is done: the manager awaits it after clear(), setMessages() and clearRun(), and
   * at close() — the session's work, never left behind.
   */
  async settled(): Promise<void> {
    await this.#queue;
  }

  /**
   * A history rewrite (clear, setMessages, clearRun, retention) removed messages, or changed their
   * text: their spilled text must not outlive them. Their records and carried excerpts are
   * dropped (read_stored_result answers SPILL/UNKNOWN_HANDLE for their handles) and their blobs
   * deleted, after the rewrite is durable (reset runs then). A message kept with the same text keeps
   * its blob. Blobs an earlier process wrote are known by the carried excerpts only (the session's
   * "spills" attachment); others of that kind stay in the store.
   */
  #forgetRemoved(messages: readonly Message[]): void {
    if (this.#records.size === 0 && this.#carried.size === 0) return;
    const kept = new Map<string, Message>();
    for (const m of messages) {
      const id = knownFacts(m)?.id ?? m.metadata?.id;
      if (typeof id === "string" && (this.#records.has(id) || this.#carried.has(id))) kept.set(id, m);
    }
    const handles: string[] = [];
    for (const [id, record] of this.#records) {
      const now = kept.get(id);
      if (now !== undefined && (now === record.original || handleOf(id, spilledText(now)) === record.handle)) continue;
      this.#records.delete(id);
      this.#made.delete(id);
      handles.push(record.handle);
    }
    for (const [id, carried] of this.#carried) {
      const now = kept.get(id);
      if (now !== undefined && handleOf(id, spilledText(now)) === carried.handle) continue;
      this.#carried.delete(id);
      if (!handles.includes(carried.handle)) handles.push(carried.handle);
    }
    if (handles.length === 0) return;
    const run = this.#queue.then(() => this.#deleteBlobs(handles));
    this.#queue = run.catch(() => undefined);
  }

  async #deleteBlobs(handles: readonly string[]): Promise<void> {
    const store = (this.#store ??= this.#init.store());
    const failed: string[] = [];
    let cause: unknown;
    for (const handle of handles) {
      try {
        await store.blobs.delete(store.keyPrefix + handle);
      } catch (error) {
        failed.push(handle);
        cause ??= error;
      }
    }
    if (failed.length > 0) {
      await this.#init.hooks?.emit("context:storage_degraded", {
        reason: `${failed.length} spilled input(s) of removed messages could not be deleted from the blob store (${cause instanceof Error ? cause.message : String(cause)}); their text stays there`,
        store: store.blobs.kind ?? "blobs",
        detail: { handles: failed },
      });
    }
  }

  /**
   * Counts the messages at positions ≥ `from` that the walk left uncounted (the session's carried
   * counts are taken next: a resumed process walks back over them with exact counts, and one not
   * counted here would load the tokenizer there). Into #tailTokens, as the walk would have.
   */
  countUncounted(from: number): void {
    const counter = this.#lastCounter;
    if (counter === undefined || this.#uncounted.length === 0) return;
    const view = this.#view;
    const left: [number, number][] = [];
    for (const [a, b] of this.#uncounted) {
      if (b <= from) {
        left.push([a, b]);
        continue;
      }
      if (a < from) left.push([a, from]);
      for (let i = Math.max(a, from); i < b; i++) this.#tailTokens += counter.countMessage(view[i]!);
    }
    this.#uncounted = left;
  }

  /** Where the last window started (its cut), so later prompts re-excerpt only what a window can still show. */
  windowFrom(position: number): void {
    this.#windowStart = position;
  }

  /**
   * Before a window: spills what is new and over `share` × budget, and re-excerpts the window's
   * spilled messages when the prompt's terms changed. One at a time (a concurrent request waits).
   * `whole`: look at the whole history (a compaction pipeline reads all of it), not only as far
   * back as a window can reach.
   */
  prepare(budget: number, counter: TokenCounter, whole: boolean): Promise<void> {
    const run = this.#queue.then(() => this.#prepare(budget, counter, whole));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** The stored text of a spilled message; SPILL/UNKNOWN_HANDLE when none is stored under `handle`. */
  async read(handle: string): Promise<string> {
    if (typeof handle !== "string" || !HANDLE_PATTERN.test(handle)) {
      throw createError("INVALID_ARGUMENT", "a spill handle is spill- and 24 hex digits", { module: this.#init.moduleName, path: "handle", expected: 'a handle from a spilled excerpt, like "spill-0123456789abcdef01234567"', given: handle });
    }
    const store = this.#storeOrUndefined();
    try {
      if (store === undefined) throw notFound(handle, this.#init.moduleName);
      const { data } = await store.blobs.download(store.keyPrefix + handle);
      return new TextDecoder().decode(data);
    } catch (error) {
      if (!isAmplifierError(error, "STORE/BLOB_NOT_FOUND") && !isAmplifierError(error, "SPILL/UNKNOWN_HANDLE")) throw error;
    }
    // Not in the blob store (a new process over an in-memory blob store — PostgreSQL, Redis, hybrid —
    // before a window re-spilled it, or a message older than a window reaches): the stored history
    // holds the whole message (invariant 5), so the handle is found there and its blob written again.
    const text = this.#fromHistory(handle);
    if (text === undefined) throw notFound(handle, this.#init.moduleName);
    await this.#write(handle, text).catch(() => false);
    return text;
  }

  /** The excerpts of the spilled messages in the history, for the next process (carried-spills.ts). */
  carriedSpills(): CarriedSpills {
    const spills: CarriedSpill[] = [];
    for (const id of this.#positions.keys()) {
      const record = this.#records.get(id)!;
      const made = this.#made.get(id);
      if (made !== undefined) spills.push({ messageId: id, handle: record.handle, tokens: record.tokens, queryKey: record.queryKey, ...made });
    }
    return { version: 1, spills };
  }

  /** The copies the view holds in place of spilled messages (their token counts are carried with the history's). */
  copies(): Message[] {
    return [...this.#positions.keys()].map((id) => this.#records.get(id)!.excerpt);
  }

  /** The record of a spilled message (by id), if it was spilled. */
  recordOf(messageId: string | undefined): SpillRecord | undefined {
    return messageId === undefined ? undefined : this.#records.get(messageId);
  }

  /**
   * The window's decisions with each spilled message sent as its excerpt marked `truncated` /
   * `spilled` (the assembler only saw the excerpt: to it, the message was kept whole).
   */
  markDecisions(decisions: readonly WindowDecision[] | undefined): readonly WindowDecision[] | undefined {
    if (decisions === undefined || this.#records.size === 0) return decisions;
    return decisions.map((d) => (d.action !== "dropped" && d.action !== "synthetic" && d.id !== undefined && this.#positions.has(d.id) ? { ...d, action: "truncated", reason: "spilled" } : d));
  }

  /**
   * Stored positions of the spilled messages (window records mark them truncated by "spill"): the
   * same set from one window to the next until a message is spilled or the history replaced —
   * O(1) per window, not O(spilled messages).
   */
  spilledPositions(): ReadonlySet<number> | undefined {
    if (this.#positions.size === 0) return undefined;
    return (this.#positionSet ??= new Set(this.#positions.values()));
  }

  /** Explain entries of spilled messages say so: "spilled (N tokens → excerpt of M)". */
  annotate(entries: MessageExplanation[]): MessageExplanation[] {
    if (this.#records.size === 0) return entries;
    return entries.map((entry) => {
      const record = this.recordOf(entry.id);
      if (record === undefined || (entry.decision !== "kept" && entry.decision !== "truncated") || this.#positions.get(record.messageId) !== entry.index) return entry;
      return { ...entry, decision: "truncated", strategy: "spill", code: "spilled", reason: `spilled (${record.tokens} tokens → excerpt of ${record.excerptTokens}); ${entry.reason}` };
    });
  }

  // --- private ----------------------------------------------------------------------------------

  async #prepare(budget: number, counter: TokenCounter, whole: boolean): Promise<void> {
    const options = this.#init.options;
    if (options === false) return;
    this.#lastCounter = counter;
    const threshold = Math.floor(options.share * budget);
    const excerptTokens = Math.max(32, Math.min(options.excerptTokens, Math.floor(threshold / 2)));
    const view = this.#view;
    // The latest prompt's terms, only when something is excerpted (most windows spill nothing).
    let terms: readonly string[] | undefined;
    const promptTerms = (): readonly string[] => (terms ??= queryTerms([promptText(view, view.length)]));
    const changes = new Map<number, Message>();
    /**
     * The message's tokens as windows carry it, and its record when it is spilled now; `undefined`
     * tokens when it cannot be spilled and `lazy` (a new message: counted only if the walk back needs it).
     */
    const examine = async (i: number, lazy: boolean): Promise<[number | undefined, SpillRecord?]> => {
      const message = view[i]!;
      const role = spillRole(message, options.roles);
      const notCounted = whole ? 0 : undefined;
      // A token is at least one UTF-8 byte and a UTF-16 unit at most three: below that bound, no count
      // needed. A message not parsed yet (resumed lazily, packed) answers its stored size: no parse.
      const bound = (storedSize(message) ?? textLength(message)) * 3 + 64;
      if (role === undefined || bound <= threshold) return [lazy || whole ? notCounted : counter.countMessage(message)];
      // The counter's own bound (UTF-8 bytes, tokens module): tighter, still no tokenizing.
      const bytesBound = counter.boundMessage?.(message);
      if (bytesBound !== undefined && bytesBound <= threshold) return [lazy || whole ? notCounted : counter.countMessage(message)];
      const tokens = counter.countMessage(message);
      const id = knownFacts(message)?.id ?? message.metadata?.id;
      if (tokens <= threshold || typeof id !== "string" || this.#failed.has(id)) return [tokens];
      const record = await this.#spill(message, id, role, tokens, counter, promptTerms(), excerptTokens, view, i);
      return record === undefined ? [tokens] : [record.excerptTokens, record];
    };
    // A rewrite while a blob was being written (setMessages, clear) replaced the view: this pass is
    // void (its positions no longer hold); the next request looks at the new history.
    const current = () => this.#view === view;
    const adopt = (position: number, record: SpillRecord | undefined) => {
      if (record === undefined) return;
      this.#positions.set(record.messageId, position);
      this.#positionSet = undefined;
      changes.set(position, record.excerpt);
    };
    while (this.#high < view.length) {
      const [tokens, record] = await examine(this.#high, true);
      if (!current()) return;
      const at = this.#high++;
      adopt(at, record);
      if (tokens !== undefined) this.#tailTokens += tokens;
      else {
        const last = this.#uncounted.at(-1);
        if (last !== undefined && last[1] === at) last[1] = at + 1;
        else this.#uncounted.push([at, at + 1]);
      }
    }
    // The walk back needs the tail's exact tokens only while the counted part is within the budget
    // (the uncounted messages only add to it): then they are counted, as before.
    const tailWithin = (): boolean => {
      if (this.#tailTokens > budget) return false;
      this.countUncounted(0);
      return this.#tailTokens <= budget;
    };
    while (this.#low > 0 && (whole || tailWithin())) {
      const [tokens, record] = await examine(this.#low - 1, false);
      if (!current()) return;
      adopt(--this.#low, record);
      this.#tailTokens += tokens ?? 0;
    }
    // With `refocus`, a new prompt: the window's spilled messages are excerpted for it (their bytes are stored already).
    if (options.refocus && this.#positions.size > 0) this.#refocus(changes, promptTerms(), excerptTokens, counter);
    this.#apply(changes);
  }

  #refocus(changes: Map<number, Message>, promptTerms: readonly string[], excerptTokens: number, counter: TokenCounter): void {
    for (const [id, position] of this.#positions) {
      if (position < this.#windowStart || changes.has(position)) continue;
      const record = this.#records.get(id)!;
      const terms = [...new Set([...promptTerms, ...record.callTerms])];
      if (terms.join("\n") === record.queryKey) continue;
      this.#excerpt(record, record.original, terms, excerptTokens, counter);
      changes.set(position, record.excerpt);
    }
  }

  async #spill(message: Message, id: string, role: "tool" | "user", tokens: number, counter: TokenCounter, promptTerms: readonly string[], excerptTokens: number, view: readonly Message[], position: number): Promise<SpillRecord | undefined> {
    const text = spilledText(message);
    if (text.length === 0) return undefined;
    const handle = handleOf(id, text);
    const known = this.#records.get(id);
    const toolCallId = role === "tool" ? resultIdsOf(message)[0] : undefined;
    const call = callOf(view, position, resultIdsOf(message));
    // A tool group with a critical member is critical as a whole: kept verbatim (invariant 2).
    if (call?.critical) return undefined;
    const callTerms = queryTerms(call?.arguments ?? []);
    const bytes = Buffer.byteLength(text, "utf8");
    // The excerpt the last process made for this very message, with the same counter and budget (a resume).
    const carried = known?.handle === handle ? undefined : this.#carried.get(id);
    const reused = carried !== undefined && carried.handle === handle && carried.tokens === tokens && carried.maxTokens === excerptTokens && carried.counter === counterKey(counter) ? carried : undefined;
    // A window too small for the header and some text gains nothing from an excerpt: it cuts the message to fit instead.
    // (A carried excerpt passed this test with the same header and budget.)
    if (reused === undefined && counter.countText(headerOf({ role, chars: text.length, tokens, handle })) + MIN_EXCERPT_BODY > excerptTokens) return undefined;
    let written = false;
    if (known?.handle !== handle) {
      try {
        written = await this.#write(handle, text);
      } catch (error) {
        this.#failed.add(id);
        const blobs = this.#storeOrUndefined()?.blobs;
        await this.#init.hooks?.emit("context:storage_degraded", {
          reason: `a ${tokens}-token ${role === "tool" ? "tool result" : "user message"} could not be spilled to the blob store (${error instanceof Error ? error.message : String(error)}); the window cuts it to fit instead`,
          store: blobs?.kind ?? "blobs",
          detail: { messageId: id, handle },
        });
        return undefined;
      }
    }
    const record: SpillRecord = known?.handle === handle ? known : { handle, messageId: id, role, ...(toolCallId === undefined ? {} : { toolCallId }), tokens, excerptTokens: 0, bytes, chars: text.length, callTerms, queryKey: "", excerpt: message, original: message };
    if (reused !== undefined) this.#reuse(record, message, reused, counter);
    else this.#excerpt(record, message, [...new Set([...promptTerms, ...callTerms])], excerptTokens, counter, text);
    this.#carried.delete(id);
    this.#records.set(id, record);
    if (written) {
      await this.#init.hooks?.emit("context:spill", { messageId: id, role, ...(toolCallId === undefined ? {} : { toolCallId }), tokens, excerptTokens: record.excerptTokens, bytes, handle });
    }
    return record;
  }

  /** Writes the text under its handle unless it is there already (a resume); true when written. */
  async #write(handle: string, text: string): Promise<boolean> {
    const store = (this.#store ??= this.#init.store());
    const key = store.keyPrefix + handle;
    try {
      await store.blobs.presignUrl(key);
      return false;
    } catch (error) {
      if (!isAmplifierError(error, "STORE/BLOB_NOT_FOUND")) throw error;
    }
    await store.blobs.upload(key, new TextEncoder().encode(text), CONTENT_TYPE);
    return true;
  }

  #excerpt(record: SpillRecord, message: Message, terms: readonly string[], maxTokens: number, counter: TokenCounter, text: string = spilledText(message)): void {
    const header = headerOf(record);
    const excerpt = excerptOf({ text, terms, maxTokens, countText: (t) => counter.countText(t), header });
    record.excerpt = copyWithExcerpt(message, excerpt, { handle: record.handle, tokens: record.tokens, chars: record.chars });
    record.excerptTokens = counter.countMessage(record.excerpt);
    record.queryKey = terms.join("\n");
    this.#made.set(record.messageId, { maxTokens, counter: counterKey(counter), excerpt });
  }

  /** The copy made from a carried excerpt: the same bytes the last process sent, counted like any message (a carried count when there is one). */
  #reuse(record: SpillRecord, message: Message, carried: CarriedSpill, counter: TokenCounter): void {
    record.excerpt = copyWithExcerpt(message, carried.excerpt, { handle: record.handle, tokens: record.tokens, chars: record.chars });
    record.excerptTokens = counter.countMessage(record.excerpt);
    record.queryKey = carried.queryKey;
    this.#made.set(record.messageId, { maxTokens: carried.maxTokens, counter: carried.counter, excerpt: carried.excerpt });
  }

  /** Puts the copies in the view (a new array: a new source for a pipeline) and rolls the assembler back to the first. */
  #apply(changes: Map<number, Message>): void {
    if (changes.size === 0) return;
    this.#view = this.#view.slice();
    let first = Number.POSITIVE_INFINITY;
    for (const [position, message] of changes) {
      this.#view[position] = message;
      first = Math.min(first, position);
    }
    const assembler = this.#init.assembler;
    assembler.truncate(first);
    for (let i = assembler.length; i < this.#view.length; i++) assembler.append(this.#view[i]!);
  }

  /**
   * The text of the stored message spilled under `handle`, looked for in the history (newest
   * first): a spillable message whose text is long enough to have been spilled, hashed as #spill
   * does. Parses what it looks at — a read of an unknown handle is rare, and getMessages() would.
   */
  #fromHistory(handle: string): string | undefined {
    for (const record of this.#records.values()) if (record.handle === handle) return spilledText(record.original);
    const roles = this.#init.options === false ? (["tool", "user"] as const) : this.#init.options.roles;
    const view = this.#view;
    for (let i = view.length - 1; i >= 0; i--) {
      const message = view[i]!;
      if (spillRole(message, roles) === undefined || (storedSize(message) ?? textLength(message)) < MIN_SPILLED_CHARS) continue;
      const id = knownFacts(message)?.id ?? message.metadata?.id;
      if (typeof id !== "string") continue;
      const text = spilledText(message);
      if (text.length >= MIN_SPILLED_CHARS && handleOf(id, text) === handle) return text;
    }
    return undefined;
  }

  #storeOrUndefined(): SpillStore | undefined {
    try {
      return (this.#store ??= this.#init.store());
    } catch {
      return undefined;
    }
  }
}

/** The handle of a message's spilled text: the same message always has the same one. */
function handleOf(id: string, text: string): string {
  return `spill-${createHash("sha256").update(id).update("\n").update(text).digest("hex").slice(0, 24)}`;
}

/** The excerpt's first lines: what it is, where the whole text is, how to read more. */
function headerOf(record: Pick<SpillRecord, "role" | "chars" | "tokens" | "handle">): string {
  return (
    `[Spilled: this ${record.role === "tool" ? "tool result" : "message"} is ${record.chars} characters (${record.tokens} tokens), too large for the context window; the whole text is stored under handle "${record.handle}". ` +
    `Below: its start, the lines matching the request, its end. To read more, call read_stored_result with {"handle":"${record.handle}","offset":<character offset>,"length":<characters>} or {"handle":"${record.handle}","pattern":"<text or regex>"}.]`
  );
}

/** "tool" for a tool result (a tool message, a user message of tool_result blocks), "user" for a prompt; undefined when not spillable. */
function spillRole(message: Message, roles: readonly ("tool" | "user")[]): "tool" | "user" | undefined {
  // Critical messages are kept verbatim (invariant 2): never spilled.
  if (isCritical(message)) return undefined;
  const role = knownFacts(message)?.role ?? message.role;
  const kind = role === "tool" ? "tool" : role === "user" ? (hasTurnContent(message) ? "user" : "tool") : undefined;
  return kind !== undefined && roles.includes(kind) ? kind : undefined;
}

/** The message's text parts (content text and tool results' text), joined by "\n": what is stored and paged. */
export function spilledText(message: Message): string {
  const parts: string[] = [];
  forEachContentPart(message, { text: (t) => void parts.push(t), resultText: (t) => void parts.push(t) });
  return parts.join("\n");
}

/**
 * The message with its largest text part replaced by `excerpt` and every other text part longer
 * than KEPT_PART_CHARS by a marker naming the handle; marked `metadata.window.spilled`. Everything
 * else (ids, pairing, images, thinking, opaque blocks) is kept as it is.
 */
export function copyWithExcerpt(message: Message, excerpt: string, mark: SpillMark): Message {
  const { handle } = mark;
  const marker = `[part of the spilled result ${handle}]`;
  let largest = -1;
  let index = 0;
  let longest = -1;
  forEachContentPart(message, {
    text: (t) => void (t.length > longest ? ((longest = t.length), (largest = index++)) : index++),
    resultText: (t) => void (t.length > longest ? ((longest = t.length), (largest = index++)) : index++),
  });
  let at = 0;
  const part = (t: string): string => (at++ === largest ? excerpt : t.length > KEPT_PART_CHARS ? marker : t);
  const content = message.content;
  let next: Message["content"];
  if (typeof content === "string") next = part(content);
  else if (Array.isArray(content)) {
    next = content.map((block) => {
      if (typeof block !== "object" || block === null) return block;
      if (block.type === "text") return { ...block, text: part(block.text) };
      if (block.type !== "tool_result") return block;
      if (typeof block.content === "string") return { ...block, content: part(block.content) };
      if (!Array.isArray(block.content)) return block;
      return { ...block, content: block.content.map((inner) => (inner?.type === "text" ? { ...inner, text: part(inner.text) } : inner)) };
    }) as Message["content"];
  } else next = content;
  // Marked like every change a window makes (window-marks.ts): metadata is never sent.
  return withMark({ ...message, content: next } as Message, { spilled: mark });
}

/** The text of the latest user prompt before `end` (not a message of tool results only). */
function promptText(view: readonly Message[], end: number): string {
  for (let i = end - 1; i >= 0; i--) {
    const message = view[i]!;
    const facts = knownFacts(message);
    if ((facts?.role ?? message.role) !== "user" || !hasTurnContent(message)) continue;
    return joinText(message.content).slice(0, 4_000);
  }
  return "";
}

/** The assistant message before `position` making the calls `callIds`: its calls' arguments (JSON text), and whether it is critical. */
function callOf(view: readonly Message[], position: number, callIds: readonly string[]): { arguments: string[]; critical: boolean } | undefined {
  if (callIds.length === 0) return undefined;
  const wanted = new Set(callIds);
  for (let i = position - 1; i >= 0 && i >= position - CALL_LOOKBACK; i--) {
    const message = view[i]!;
    if (!callsOf(message).some((call) => wanted.has(call.id))) continue;
    const texts: string[] = [];
    forEachContentPart(message, { toolCall: (call) => void (wanted.has(call.id) ? texts.push(callArguments(call)) : undefined) });
    return { arguments: texts, critical: isCritical(message) };
  }
  return undefined;
}

function notFound(handle: string, module: string) {
  return spillErrors.create("UNKNOWN_HANDLE", `no spilled result is stored under ${JSON.stringify(handle)}`, { module, path: "handle", expected: "a handle from a spilled excerpt of this session", given: handle });
}
