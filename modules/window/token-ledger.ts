/**
 * Token sums of one counter over the units of a HistoryIndex, counted LAZILY FROM THE END.
 *
 * Why lazily: tokenizing is the expensive part (a 100,000-message coding session is ~50M tokens,
 * close to a minute of tiktoken). A window only needs the tokens of what it keeps, plus enough
 * of what precedes to know that it would not fit. So the ledger counts the newest units first and
 * extends downwards only as far as a decision needs; a resumed session pays for its window, not
 * for its history. Each unit is counted once per counter (cached by unit and version).
 *
 * The sums: R(u) is a running sum of the tokens of NON-critical units, anchored at the unit count
 * when the ledger first ran (R(anchor) = 0) and defined on the counted range [base, n]. The tokens
 * of the non-critical units in [c, n) are R(n) − R(c). Critical units are summed apart (they are
 * kept wherever they are). Appending extends the range up; a change to an already counted unit
 * (a late result, a unit turning critical) drops the sums that depend on it and they are redone.
 */
import type { Message } from "@amplifier-ts/contracts";
import type { ToolDefinition } from "@amplifier-ts/contracts";
import type { HistoryIndex, Unit } from "./history-index.js";
import { resultParts, textLength, truncateParts, type TextPart } from "./truncate-message.js";
import { truncationMarker } from "./truncate-text.js";

/** What the assembler needs of a token counter (@amplifier-ts/tokens' TokenCounter has it all). */
export interface WindowCounter {
  readonly encoding: string;
  readonly replyPriming: number;
  countMessage(message: Message): number;
  countText(text: string): number;
  countTools(tools: readonly ToolDefinition[]): number;
  /**
   * A proven upper bound of countMessage without tokenizing (@amplifier-ts/tokens' counters have
   * it); undefined or absent: no bound, messages are counted when a window needs them.
   */
  boundMessage?(message: Message): number | undefined;
}

/**
 * The ledger's sums with the units appended since the last exact count PRICED BY UPPER BOUNDS
 * (WindowCounter.boundMessage), not counted (TokenLedger.boundedView). Every sum is ≥ the exact
 * one, so a window it finds within a limit is within it exactly; the assembler takes its decision
 * only when that is so, and counts otherwise (window-assembler.ts).
 */
export interface BoundedLedger {
  reachDown(limit: number, floor: number): number;
  suffixTokens(c: number): number;
  /**
   * The exact tokens of the non-critical units in [c, n) as of now, computed when first called
   * (the pending units' messages are captured now, counted then): a report's exact figure, paid
   * only when read.
   */
  exactSuffix(c: number): () => number;
}

/** A truncatable part of a member message with the planning figures of the ladder. */
export interface PartInfo {
  readonly part: TextPart;
  /** Estimated tokens of the part's text (its share of the message's tokens by characters). */
  readonly tokens: number;
  /** Tokens of the part cut down to its marker alone. */
  readonly markerTokens: number;
}

interface UnitEntry {
  version: number;
  tokens: number;
  members?: number[];
  minimum?: number;
}

export class TokenLedger {
  readonly #index: HistoryIndex;
  readonly #units = new WeakMap<Unit, UnitEntry>();
  readonly #parts = new WeakMap<Message, PartInfo[]>();
  readonly #truncated = new WeakMap<Message, Map<string, { message: Message; tokens: number }>>();
  /** atCap's answers per message and cap (null: nothing to cut). */
  readonly #atCap = new WeakMap<Message, Map<number, { message: Message; tokens: number } | null>>();
  #instructionCount = 0;
  #instructionTokens = 0;
  #anchor = -1;
  /** up[k] = R(anchor + k); down[k] = R(anchor − 1 − k). */
  #up: number[] = [];
  #down: number[] = [];
  /** Bounds of units not counted yet (boundedView), by unit and version. */
  readonly #bounds = new WeakMap<Unit, { version: number; bound: number }>();

  constructor(
    readonly counter: WindowCounter,
    index: HistoryIndex,
  ) {
    this.#index = index;
  }

  /** Tokens of every instruction (system, developer) message; counted once each. */
  get instructionTokens(): number {
    const list = this.#index.instructions;
    for (; this.#instructionCount < list.length; this.#instructionCount++) {
      this.#instructionTokens += this.counter.countMessage(this.#index.stored[list[this.#instructionCount]!]!);
    }
    return this.#instructionTokens;
  }

  /** Tokens of a unit as a window sends it untouched (synthetic results included). */
  unitTokens(u: number): number {
    return this.#entry(u).tokens;
  }

  /** Tokens of each emitted member of a unit. */
  memberTokens(u: number): readonly number[] {
    const entry = this.#entry(u);
    entry.members ??= this.#index.units[u]!.emitted().map((m) => this.counter.countMessage(m.message));
    return entry.members;
  }

  /** Σ tokens of the critical units. */
  criticalTokens(): number {
    let total = 0;
    for (const u of this.#index.criticalUnits) total += this.unitTokens(u);
    return total;
  }

  /** Tokens of a critical unit at its smallest: critical members verbatim, other results at cap 0. */
  minimumTokens(u: number): number {
    const entry = this.#entry(u);
    if (entry.minimum === undefined) {
      const members = this.memberTokens(u);
      entry.minimum = this.#index.units[u]!.emitted().reduce((sum, m, i) => {
        const tokens = members[i]!;
        if (!m.result || m.critical || m.synthetic) return sum + tokens;
        return sum + (this.atCap(m.message, tokens, 0)?.tokens ?? tokens);
      }, 0);
    }
    return entry.minimum;
  }

  /**
   * A result message with every part whose estimate exceeds max(cap, its marker) cut to `cap`
   * tokens — or undefined when nothing would be cut or the cut would not save a token. One rule
   * for the ladder and for minimumTokens, so the ladder's last step costs exactly the minimum.
   */
  atCap(message: Message, tokens: number, cap: number): { message: Message; tokens: number } | undefined {
    let byCap = this.#atCap.get(message);
    if (!byCap) {
      byCap = new Map();
      this.#atCap.set(message, byCap);
    }
    let hit = byCap.get(cap);
    if (hit === undefined) {
      const caps: { part: TextPart; maxTokens: number }[] = [];
      for (const p of this.partsOf(message)) if (p.tokens > Math.max(cap, p.markerTokens)) caps.push({ part: p.part, maxTokens: cap });
      const cut = caps.length === 0 ? undefined : this.truncated(message, caps);
      hit = cut !== undefined && cut.tokens < tokens ? cut : null;
      byCap.set(cap, hit);
    }
    return hit ?? undefined;
  }

  /** Tokens of the non-critical units in [c, n); counts down to c when needed. */
  suffixTokens(c: number): number {
    const n = this.#index.units.length;
    this.#extendUp();
    while (this.base > c) this.#extendDown();
    return this.#r(n) - this.#r(c);
  }

  /** The lowest unit counted so far. */
  get base(): number {
    this.#extendUp();
    return this.#anchor - this.#down.length;
  }

  /**
   * Counts downwards until the non-critical tokens from `base` on exceed `limit` or `base`
   * reaches `floor`; returns base. Every cut at or above base can then be priced in O(1).
   */
  reachDown(limit: number, floor: number): number {
    const n = this.#index.units.length;
    let base = this.base;
    while (base > floor && this.#r(n) - this.#r(base) <= limit) {
      this.#extendDown();
      base--;
    }
    return base;
  }

  /**
   * The bounded view (see BoundedLedger) when units were appended since the last exact count and
   * every one of them has a bound; undefined otherwise (nothing pending, no counter bound, or the
   * ledger has not counted yet — a first window counts).
   */
  boundedView(): BoundedLedger | undefined {
    const boundOf = this.counter.boundMessage;
    if (boundOf === undefined || this.#anchor < 0) return undefined;
    const units = this.#index.units;
    const n = units.length;
    const top = this.#anchor + this.#up.length - 1;
    if (top >= n) return undefined;
    // P[k] = Σ bounds of the non-critical units top … top + k − 1 (a counted unit by its count).
    const pending = [0];
    for (let u = top; u < n; u++) {
      const unit = units[u]!;
      let tokens = 0;
      if (!unit.critical) {
        const counted = this.#units.get(unit);
        if (counted?.version === unit.version) tokens = counted.tokens;
        else {
          let hit = this.#bounds.get(unit);
          if (hit?.version !== unit.version) {
            let bound = 0;
            for (const member of unit.emitted()) {
              const b = boundOf.call(this.counter, member.message);
              if (b === undefined) return undefined;
              bound += b;
            }
            hit = { version: unit.version, bound };
            this.#bounds.set(unit, hit);
          }
          tokens = hit.bound;
        }
      }
      pending.push(pending[pending.length - 1]! + tokens);
    }
    const all = pending[pending.length - 1]!;
    const lowest = () => this.#anchor - this.#down.length;
    const suffix = (c: number): number => {
      if (c >= top) return all - pending[c - top]!;
      while (lowest() > c) this.#extendDown();
      return this.#r(top) - this.#r(c) + all;
    };
    return {
      suffixTokens: suffix,
      reachDown: (limit, floor) => {
        let base = lowest();
        while (base > floor && suffix(base) <= limit) {
          this.#extendDown();
          base--;
        }
        return base;
      },
      exactSuffix: (c) => {
        while (c < top && lowest() > c) this.#extendDown();
        const counted = c < top ? this.#r(top) - this.#r(c) : 0;
        const messages: Message[] = [];
        for (let u = Math.max(c, top); u < n; u++) if (!units[u]!.critical) for (const member of units[u]!.emitted()) messages.push(member.message);
        let exact: number | undefined;
        return () => {
          if (exact === undefined) {
            exact = counted;
            for (const m of messages) exact += this.counter.countMessage(m);
          }
          return exact;
        };
      },
    };
  }

  /**
   * Whether the counted non-critical units alone (counting further down as needed, never up)
   * exceed `limit` from `floor` on: then no window from `floor` fits `limit`, whatever the units
   * not counted yet hold.
   */
  countedExceeds(limit: number, floor: number): boolean {
    if (this.#anchor < 0) return false;
    const top = this.#anchor + this.#up.length - 1;
    if (floor >= top) return false;
    let base = this.#anchor - this.#down.length;
    while (base > floor && this.#r(top) - this.#r(base) <= limit) {
      this.#extendDown();
      base--;
    }
    return this.#r(top) - this.#r(Math.max(base, floor)) > limit;
  }

  /** Counts every unit appended since the last exact count (idle work: the next window then needs no bound). */
  settle(): void {
    if (this.#anchor >= 0) this.#extendUp();
  }

  /**
   * Counts the units appended since the last exact count except the newest `keep` (the older ones
   * first): a window then prices at most `keep` units by bounds, so priced units never pile up in a
   * loop that leaves no idle time — each turn counts what the previous ones left, not a burst of them.
   */
  settleAllBut(keep: number): void {
    if (this.#anchor < 0) return;
    const until = this.#index.units.length - keep;
    for (let top = this.#anchor + this.#up.length - 1; top < until; top++) this.#up.push(this.#up[this.#up.length - 1]! + this.#nonCritical(top));
  }

  /** The lowest unit counted so far, without counting up (see `base`). */
  get lowest(): number {
    return this.#anchor < 0 ? this.#index.units.length : this.#anchor - this.#down.length;
  }

  /** Units appended since the last exact count. */
  get pending(): number {
    return this.#anchor < 0 ? 0 : Math.max(0, this.#index.units.length - (this.#anchor + this.#up.length - 1));
  }

  /**
   * The index was truncated (HistoryIndex.truncate; its onUnitChanged already invalidated the
   * sums from the lowest changed unit): sums anchored at a unit that is gone start afresh, and
   * removed instructions are uncounted. Cached unit and message counts stay.
   */
  afterTruncate(): void {
    if (this.#anchor > this.#index.units.length) {
      this.#anchor = -1;
      this.#up = [];
      this.#down = [];
    }
    if (this.#instructionCount > this.#index.instructions.length) {
      this.#instructionCount = 0;
      this.#instructionTokens = 0;
    }
  }

  /** Forget sums that depend on unit `u` (its tokens or criticality changed). */
  invalidateFrom(u: number): void {
    if (this.#anchor < 0) return;
    if (u >= this.#anchor) this.#up.length = Math.min(this.#up.length, u - this.#anchor + 1);
    else this.#down.length = Math.min(this.#down.length, this.#anchor - 1 - u);
  }

  /** The truncatable parts of a result member, with planning estimates (cached per message). */
  partsOf(message: Message): PartInfo[] {
    let parts = this.#parts.get(message);
    if (!parts) {
      const tokens = this.counter.countMessage(message);
      const chars = Math.max(1, textLength(message));
      parts = resultParts(message).map((part) => ({
        part,
        tokens: Math.ceil((tokens * part.text.length) / chars),
        markerTokens: this.counter.countText(truncationMarker(part.text.length)),
      }));
      this.#parts.set(message, parts);
    }
    return parts;
  }

  /** A truncated copy of `message` and its exact tokens, cached per message and caps. */
  truncated(message: Message, caps: readonly { part: TextPart; maxTokens: number }[]): { message: Message; tokens: number } {
    let byCaps = this.#truncated.get(message);
    if (!byCaps) {
      byCaps = new Map();
      this.#truncated.set(message, byCaps);
    }
    const key = caps.map((c) => `${c.part.block}:${c.maxTokens}`).join(",");
    let hit = byCaps.get(key);
    if (!hit) {
      const copy = truncateParts(message, caps, (text) => this.counter.countText(text));
      hit = { message: copy, tokens: this.counter.countMessage(copy) };
      byCaps.set(key, hit);
    }
    return hit;
  }

  #entry(u: number): UnitEntry {
    const unit = this.#index.units[u]!;
    let entry = this.#units.get(unit);
    if (entry?.version !== unit.version) {
      let tokens = 0;
      for (const member of unit.emitted()) tokens += this.counter.countMessage(member.message);
      entry = { version: unit.version, tokens };
      this.#units.set(unit, entry);
    }
    return entry;
  }

  #nonCritical(u: number): number {
    return this.#index.units[u]!.critical ? 0 : this.unitTokens(u);
  }

  #r(u: number): number {
    return u >= this.#anchor ? this.#up[u - this.#anchor]! : this.#down[this.#anchor - 1 - u]!;
  }

  #extendUp(): void {
    const n = this.#index.units.length;
    if (this.#anchor < 0) {
      this.#anchor = n;
      this.#up = [0];
    }
    for (let top = this.#anchor + this.#up.length - 1; top < n; top++) {
      this.#up.push(this.#up[this.#up.length - 1]! + this.#nonCritical(top));
    }
  }

  #extendDown(): void {
    const base = this.#anchor - this.#down.length;
    const above = base === this.#anchor ? 0 : this.#down[this.#down.length - 1]!;
    this.#down.push(above - this.#nonCritical(base - 1));
  }
}
