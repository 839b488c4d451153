/**
 * Σ countMessage over an array that usually EXTENDS the one measured last time (a growing history,
 * or a strategy's output that only gained messages at the end): only the new messages are counted,
 * so a strategy that measures the whole history per request pays O(new messages) token lookups
 * plus one pass of reference comparisons, not O(history) cache lookups. Any other change (a
 * message replaced, fewer messages, another counter) is measured in full.
 */
import type { Message } from "@amplifier-ts/contracts";

interface MessageCounter {
  countMessage(message: Message): number;
}

export class RunningTokens {
  #snapshot: readonly Message[] = [];
  #total = 0;
  #counter: MessageCounter | undefined;

  /** Σ counter.countMessage(m) over `messages` (additivity: equals counter.countMessages(messages)). */
  measure(messages: readonly Message[], counter: MessageCounter): number {
    const old = this.#snapshot;
    let from = 0;
    let total = 0;
    if (counter === this.#counter && messages.length >= old.length) {
      let same = true;
      for (let i = old.length - 1; i >= 0; i--) {
        if (messages[i] !== old[i]) {
          same = false;
          break;
        }
      }
      if (same) {
        from = old.length;
        total = this.#total;
      }
    }
    for (let i = from; i < messages.length; i++) total += counter.countMessage(messages[i]!);
    this.#snapshot = messages.slice();
    this.#total = total;
    this.#counter = counter;
    return total;
  }
}
