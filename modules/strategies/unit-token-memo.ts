/**
 * Token counts per history unit, counted when first asked for and kept between requests (recall):
 * a strategy that reads a few units anywhere in the history (the recent part, hits and their
 * neighbours) pays for those, never for the whole history, and not again on the next request.
 * UnitTokenSums (unit-token-sums.ts) is the eager variant for strategies that cut on suffix sums.
 *
 * | what changed since the last request            | forgotten                          |
 * |------------------------------------------------|------------------------------------|
 * | messages appended (units grew or were added)   | the units from the lowest changed one on |
 * | the split was rewritten from a position        | idem (HistoryUnits.lowestChanged)  |
 * | another split, or another counter              | everything (O(1): a new stamp)     |
 *
 * Critical units are counted like the others: the caller decides whether they weigh.
 */
import type { CompactionContext } from "@amplifier-ts/contracts";
import type { HistoryUnits } from "./history-units.js";

export class UnitTokenMemo {
  #tokens = new Float64Array(64);
  /** An entry is known when its stamp is the current one. */
  #stamps = new Uint32Array(64);
  #stamp = 1;
  #units: HistoryUnits | undefined;
  #counter: CompactionContext["counter"] | undefined;
  /** Units the memo may hold entries for (the split's length when last synced). */
  #length = 0;

  /** Brings the memo up to date with `units` (just grown or truncated) and `counter`; returns the lookup. */
  sync(units: HistoryUnits, counter: CompactionContext["counter"]): (u: number) => number {
    if (units !== this.#units || counter !== this.#counter) {
      this.#stamp++;
    } else {
      const end = Math.min(Math.max(units.length, this.#length), this.#stamps.length);
      for (let u = Math.min(units.lowestChanged, this.#length); u < end; u++) this.#stamps[u] = 0;
    }
    this.#units = units;
    this.#counter = counter;
    this.#length = units.length;
    if (units.length > this.#tokens.length) {
      const size = Math.max(units.length, this.#tokens.length * 2);
      const tokens = new Float64Array(size);
      tokens.set(this.#tokens);
      const stamps = new Uint32Array(size);
      stamps.set(this.#stamps);
      this.#tokens = tokens;
      this.#stamps = stamps;
    }
    return (u) => this.#count(units, counter, u);
  }

  #count(units: HistoryUnits, counter: CompactionContext["counter"], u: number): number {
    if (this.#stamps[u] === this.#stamp) return this.#tokens[u]!;
    const messages = units.messages;
    let t = 0;
    for (const member of units.units[u]!.members) if (member.stored >= 0) t += counter.countMessage(messages[member.stored]!);
    this.#tokens[u] = t;
    this.#stamps[u] = this.#stamp;
    return t;
  }
}
