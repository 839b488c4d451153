/**
 * Incremental plumbing of the compaction pipeline: every built-in strategy keeps its
 * OUTPUT as a MessageLog and reads its INPUT through a LogCursor, so a request whose history only
 * grew costs each strategy O(new messages + what its cut rewrites), never O(history).
 *
 * | piece          | what it is                                                                         |
 * |----------------|------------------------------------------------------------------------------------|
 * | `MessageSource`| what a strategy reads: `items` (live; the producer appends to it in place) and a journal of rewrites |
 * | `MessageLog`   | a source a strategy owns: `append`, `truncate(at)` (everything from `at` on is replaced) |
 * | `HistorySource`| the stored history as a source: its live array only grows until a rewrite replaces it (stored-history.ts) |
 * | `ArraySource`  | a plain array handed to `compact()` (the array API): compared with the previous one, O(n) |
 * | `LogCursor`    | a consumer's position: `next(source)` = the lowest position that changed since its last read |
 *
 * Contract: positions below what `next` returns hold the same message objects as when the consumer
 * last read them; from there on the consumer must (re)process. A consumer that cannot roll its
 * state back to that position rebuilds it from 0 (the result is the same, only slower).
 */
import type { Message } from "@amplifier-ts/contracts";

export interface MessageSource {
  /** The current messages. The producer may append to (or truncate) this array between reads. */
  readonly items: readonly Message[];
  /** Increases with every rewrite (truncate); appends do not change it. */
  readonly version: number;
  /** The lowest position truncated after `version` (Infinity when none; 0 when the journal no longer reaches back). */
  rewrittenSince(version: number): number;
}

/** Rewrites remembered per log; a consumer further behind rebuilds from 0. */
const JOURNAL = 64;

export class MessageLog implements MessageSource {
  readonly items: Message[] = [];
  #version = 0;
  /** version after each rewrite → its position. */
  readonly #journal: { version: number; at: number }[] = [];

  get version(): number {
    return this.#version;
  }

  get length(): number {
    return this.items.length;
  }

  append(message: Message): void {
    this.items.push(message);
  }

  /** Drops the messages from `at` on (what follows is appended again by the producer). */
  truncate(at: number): void {
    if (at >= this.items.length) return;
    this.items.length = at;
    this.#version++;
    this.#journal.push({ version: this.#version, at });
    if (this.#journal.length > JOURNAL * 2) this.#journal.splice(0, this.#journal.length - JOURNAL);
  }

  /** Replaces the whole content. */
  reset(messages: readonly Message[] = []): void {
    this.truncate(0);
    for (const m of messages) this.items.push(m);
  }

  rewrittenSince(version: number): number {
    if (version >= this.#version) return Number.POSITIVE_INFINITY;
    const journal = this.#journal;
    if (journal.length === 0 || journal[0]!.version > version + 1) return 0;
    let low = Number.POSITIVE_INFINITY;
    for (let k = journal.length - 1; k >= 0 && journal[k]!.version > version; k--) low = Math.min(low, journal[k]!.at);
    return low;
  }
}

/** The stored history's live array: it only grows by push until a rewrite replaces the array itself. */
export class HistorySource implements MessageSource {
  constructor(readonly items: readonly Message[]) {}
  readonly version = 0;
  rewrittenSince(): number {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * A plain array (the array API, `compact(messages)`) as a source: each `set` compares the new
 * array with the previous one by reference (O(n)) and records the first difference as a rewrite.
 */
export class ArraySource implements MessageSource {
  readonly #log = new MessageLog();

  get items(): readonly Message[] {
    return this.#log.items;
  }

  get version(): number {
    return this.#log.version;
  }

  rewrittenSince(version: number): number {
    return this.#log.rewrittenSince(version);
  }

  set(messages: readonly Message[]): this {
    const old = this.#log.items;
    const n = Math.min(old.length, messages.length);
    let same = 0;
    while (same < n && old[same] === messages[same]) same++;
    this.#log.truncate(same);
    for (let i = same; i < messages.length; i++) this.#log.append(messages[i]!);
    return this;
  }
}

/** A consumer's read position in a source. */
export class LogCursor {
  #items: readonly Message[] | undefined;
  #version = 0;
  #length = 0;

  /**
   * The lowest position that changed since the last call (the old length when the source only
   * grew; 0 for another source or after `reset`). Records the source's current state.
   */
  next(source: MessageSource): number {
    let from = 0;
    if (source.items === this.#items) from = Math.min(this.#length, source.rewrittenSince(this.#version), source.items.length);
    this.#items = source.items;
    this.#version = source.version;
    this.#length = source.items.length;
    return from;
  }

  /** The next read starts from 0. */
  reset(): void {
    this.#items = undefined;
  }
}

/**
 * Prefix sums of a per-unit weight over a growing list of units, recomputed only from the lowest
 * unit that changed (`invalidateFrom`): `suffix(from)` = Σ weight(u) for u ≥ from, O(1).
 */
export class PrefixSums {
  #sums = new Float64Array(64);
  /** sums[0..valid] are up to date (sums[u] = Σ weight over units < u). */
  #valid = 0;
  #length = 0;

  invalidateFrom(unit: number): void {
    if (unit < this.#valid) this.#valid = Math.max(0, unit);
  }

  /** Brings the sums up to `length` units. */
  update(length: number, weight: (u: number) => number): void {
    if (length + 1 > this.#sums.length) {
      const grown = new Float64Array(Math.max(length + 1, this.#sums.length * 2));
      grown.set(this.#sums.subarray(0, this.#valid + 1));
      this.#sums = grown;
    }
    const from = Math.min(this.#valid, length);
    for (let u = from; u < length; u++) this.#sums[u + 1] = this.#sums[u]! + weight(u);
    this.#valid = length;
    this.#length = length;
  }

  get total(): number {
    return this.#sums[this.#length]!;
  }

  suffix(from: number): number {
    return this.#sums[this.#length]! - this.#sums[Math.min(from, this.#length)]!;
  }
}

/**
 * Σ countMessage over a source, kept per position so a rewrite subtracts only what it replaced.
 * With `limit`, counting stops once the counted prefix exceeds it: the result is then only a
 * lower bound (> limit) — enough for "does it fit?", and a growing history that is over its
 * limit tokenizes nothing more (a long tool result is not tokenized just to learn it does not fit).
 */
export class RunningSourceTokens {
  readonly #cursor = new LogCursor();
  #counts = new Float64Array(64);
  /** Positions [0, counted) are counted; #total is their sum. */
  #counted = 0;
  #total = 0;
  #counter: { countMessage(m: Message): number } | undefined;

  /** Exact Σ when it is ≤ `limit` (default: always exact); otherwise some value > limit. */
  measure(source: MessageSource, counter: { countMessage(m: Message): number }, limit = Number.POSITIVE_INFINITY): number {
    let from = this.#cursor.next(source);
    if (counter !== this.#counter) from = 0;
    this.#counter = counter;
    const items = source.items;
    if (from === 0) {
      this.#total = 0;
      this.#counted = 0;
    } else if (from < this.#counted) {
      for (let i = from; i < this.#counted; i++) this.#total -= this.#counts[i]!;
      this.#counted = from;
    }
    if (items.length > this.#counts.length) {
      const grown = new Float64Array(Math.max(items.length, this.#counts.length * 2));
      grown.set(this.#counts.subarray(0, this.#counted));
      this.#counts = grown;
    }
    let i = this.#counted;
    for (; i < items.length && this.#total <= limit; i++) {
      const c = counter.countMessage(items[i]!);
      this.#counts[i] = c;
      this.#total += c;
    }
    this.#counted = i;
    return this.#total;
  }
}

/** What a strategy's incremental step returns: its output and whether it differs from its input. */
export interface LogStep {
  readonly output: MessageSource;
  /** False when the output holds exactly the input's messages (same objects, same order). */
  readonly changed: boolean;
}

/**
 * A strategy that keeps its output incrementally (the built-ins): the pipeline hands it its
 * predecessor's output as a source instead of a fresh array, so nothing is copied or re-walked
 * per request. `compact(messages)` (the array API) gives the same messages.
 */
export interface IncrementalStrategy {
  compactLog(input: MessageSource, context: import("@amplifier-ts/contracts").CompactionContext): LogStep | Promise<LogStep>;
  /** Forget the kept state (the next step rebuilds it): after a step that threw half-way. */
  resetLog(): void;
}

export function isIncremental(strategy: object): strategy is IncrementalStrategy {
  return typeof (strategy as Partial<IncrementalStrategy>).compactLog === "function";
}

/**
 * One strategy over a source: its incremental step, or — a strategy with only the array API (a
 * third party's) — `compact` over a copy of the source's messages, whose result is a new source
 * (its consumers rebuild: O(history), as that strategy is anyway).
 */
export async function runStep(strategy: import("@amplifier-ts/contracts").CompactionStrategy, source: MessageSource, context: import("@amplifier-ts/contracts").CompactionContext, check: (output: unknown) => readonly Message[] = (o) => o as readonly Message[]): Promise<LogStep> {
  if (isIncremental(strategy)) {
    try {
      return await strategy.compactLog(source, context);
    } catch (error) {
      strategy.resetLog();
      throw error;
    }
  }
  const output = check(await strategy.compact([...source.items], context));
  return { output: new HistorySource(output), changed: differs(source.items, output) };
}

/** True when the two arrays do not hold the same message objects in the same order. */
export function differs(a: readonly Message[], b: readonly Message[]): boolean {
  if (a.length !== b.length) return true;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return true;
  return false;
}
