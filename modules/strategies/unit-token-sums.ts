/**
 * Token sums over the units of a history split (a turn, a tool call with its results …), kept
 * between requests: the strategies that cut by tokens (token-window, summarization) ask "do the
 * units from f on fit?" as a suffix of these sums.
 *
 * | what changed since the last request     | what is recounted                       |
 * |-----------------------------------------|-----------------------------------------|
 * | messages appended (units grew or added) | from the lowest unit that changed       |
 * | the split was rebuilt                   | everything                              |
 * | another counter (model or calibration)  | everything                              |
 *
 * Critical units weigh 0: they are kept wherever the cut falls.
 */
import type { CompactionContext } from "@amplifier-ts/contracts";
import type { HistoryUnits } from "./history-units.js";
import { PrefixSums } from "./message-log.js";
import { unitTokens } from "./incremental-cut.js";

export class UnitTokenSums {
  #sums = new PrefixSums();
  #counter: CompactionContext["counter"] | undefined;

  /** The sums brought up to date with `units` (as `sync` left them: `rebuilt` when it started over). */
  update(units: HistoryUnits, rebuilt: boolean, counter: CompactionContext["counter"]): PrefixSums {
    if (rebuilt || counter !== this.#counter) this.#sums = new PrefixSums();
    else this.#sums.invalidateFrom(units.lowestChanged);
    this.#counter = counter;
    this.#sums.update(units.length, (u) => (units.units[u]!.critical ? 0 : unitTokens(units, u, counter)));
    return this.#sums;
  }
}
