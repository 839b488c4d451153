/**
 * The stored history's ids (with their positions) and token total per counter, for the compaction
 * events and for mapping a pipeline's output back to stored positions (the window's record).
 *
 * Kept up to date incrementally: the history array only grows by push until it is replaced
 * (setMessages, clear, clearRun — stored-history.ts), so a request costs O(new messages), not
 * O(history). A replaced array starts a fresh tally. Ids are read with idOf: a packed or lazily
 * loaded message answers from its facts (no parse).
 */
import type { Message } from "@amplifier-ts/contracts";
import { idOf } from "@amplifier-ts/contracts";
import type { TokenCounter } from "@amplifier-ts/tokens";

export class HistoryTally {
  #history: readonly Message[] | undefined;
  #counted = 0;
  /** id → the last position holding it. */
  #ids = new Map<string, number>();
  /** A stored message without an id, or an id held twice: positionOf must compare objects. */
  #ambiguous = false;
  #tokens = new Map<TokenCounter, { counted: number; tokens: number }>();

  /** Ids of the stored messages. */
  ids(history: readonly Message[]): { has(id: string): boolean } {
    this.#followIds(history);
    return this.#ids;
  }

  /**
   * The stored position of each of `output`'s messages (a pipeline's output): the very stored
   * object's, else the position of its id (a strategy's copy of a stored message), else undefined
   * (a message a strategy made). O(output) — O(history) only when the history holds a message
   * without an id or an id twice (then objects are compared, as the answer must stay exact).
   */
  positionsOf(history: readonly Message[], output: readonly Message[]): Array<number | undefined> {
    return this.positionsInto(history, output, [], 0);
  }

  /**
   * positionsOf into `positions`, whose first `from` entries are kept (they answer for the same
   * output objects as before, over the same history array): O(output − from).
   */
  positionsInto(history: readonly Message[], output: readonly Message[], positions: Array<number | undefined>, from: number): Array<number | undefined> {
    this.#followIds(history);
    if (this.#ambiguous) return byScan(history, output);
    positions.length = Math.min(from, positions.length, output.length);
    for (let i = positions.length; i < output.length; i++) {
      const id = idOf(output[i]!);
      positions.push(typeof id === "string" ? this.#ids.get(id) : undefined);
    }
    return positions;
  }

  #followIds(history: readonly Message[]): void {
    this.#follow(history);
    for (; this.#counted < history.length; this.#counted++) {
      // From the facts when the message is packed or lazily loaded: no parse.
      const id = idOf(history[this.#counted]!);
      if (typeof id !== "string" || this.#ids.has(id)) this.#ambiguous = true;
      if (typeof id === "string") this.#ids.set(id, this.#counted);
    }
  }

  /** Σ countMessage over the stored messages (no reply priming, no tools). */
  tokens(history: readonly Message[], counter: TokenCounter): number {
    this.#follow(history);
    let sum = this.#tokens.get(counter);
    if (!sum) this.#tokens.set(counter, (sum = { counted: 0, tokens: 0 }));
    for (; sum.counted < history.length; sum.counted++) sum.tokens += counter.countMessage(history[sum.counted]!);
    return sum.tokens;
  }

  #follow(history: readonly Message[]): void {
    if (this.#history === history) return;
    this.#history = history;
    this.#counted = 0;
    this.#ids = new Map();
    this.#ambiguous = false;
    this.#tokens = new Map();
  }
}

/** positionsOf by comparing objects first, then ids (the last position of an id), over the whole history. */
function byScan(history: readonly Message[], output: readonly Message[]): Array<number | undefined> {
  const byObject = new Map<Message, number>();
  const byId = new Map<string, number>();
  history.forEach((m, i) => {
    byObject.set(m, i);
    const id = idOf(m);
    if (typeof id === "string") byId.set(id, i);
  });
  return output.map((m) => {
    const id = idOf(m);
    return byObject.get(m) ?? (typeof id === "string" ? byId.get(id) : undefined);
  });
}
