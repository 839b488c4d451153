/**
 * The stored history's ids and token total per counter, for the compaction events.
 *
 * Kept up to date incrementally: the history array only grows by push until it is replaced
 * (setMessages, clear, clearRun — stored-history.ts), so a request costs O(new messages), not
 * O(history). A replaced array starts a fresh tally.
 */
import type { Message } from "@amplifier-ts/contracts";
import { idOf } from "@amplifier-ts/contracts";
import type { TokenCounter } from "@amplifier-ts/tokens";

export class HistoryTally {
  #history: readonly Message[] | undefined;
  #counted = 0;
  #ids = new Set<string>();
  #tokens = new Map<TokenCounter, { counted: number; tokens: number }>();

  /** Ids of the stored messages. */
  ids(history: readonly Message[]): ReadonlySet<string> {
    this.#follow(history);
    for (; this.#counted < history.length; this.#counted++) {
      // From the facts when the message is packed or lazily loaded: no parse.
      const id = idOf(history[this.#counted]!);
      if (typeof id === "string") this.#ids.add(id);
    }
    return this.#ids;
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
    this.#ids = new Set();
    this.#tokens = new Map();
  }
}
