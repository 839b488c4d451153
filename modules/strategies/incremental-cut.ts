/**
 * The incremental plumbing of a strategy that keeps or drops whole units of its input
 * (defineCutStrategy's strategies, and token-budget's own cut). One request, in two calls:
 *
 * | step                     | piece (file)                      | cost while the input only grows |
 * |--------------------------|-----------------------------------|---------------------------------|
 * | `sync`: split the input  | SplitInput (history-units.ts)     | O(new messages)                 |
 * | `sync`: weigh the units  | one PrefixSums per quantity (message-log.ts) | from the lowest unit that changed |
 * | `cut`: decide the cut    | SteppedCut (stepped-cut.ts)       | O(log units): binary search on the sums |
 * | `cut`: bring the output up to date | CutOutput (cut-output.ts) | O(new messages + what a moved cut rewrites) |
 * | explain (when enabled)   | a full pass recording every dropped message with the reason | O(input) |
 *
 * A unit's weight is asked once per unit (again only when the unit changes, the split is rebuilt,
 * or — for weights in tokens — the counter changes). Critical units weigh 0: they are kept
 * wherever the cut falls, so they never push it.
 */
import type { CompactionContext, ExplainRecorder } from "@amplifier-ts/contracts";
import { messageId, SplitInput, type Dropped, type HistoryUnits } from "./history-units.js";
import { SteppedCut } from "./stepped-cut.js";
import { CutOutput, groupsRule, tailRule } from "./cut-output.js";
import { PrefixSums, type LogStep, type MessageSource } from "./message-log.js";

export type TokenCounter = CompactionContext["counter"];

/** How much non-critical unit `u` weighs (messages, characters, tokens …). */
export type UnitWeight = (units: HistoryUnits, u: number, counter: TokenCounter) => number;

/** What a cut before unit `cut` drops: every unit before it (`tail`), or only the tool groups before it (`groups`). */
export type CutDrops = "tail" | "groups";

export interface IncrementalCutOptions {
  readonly drops: CutDrops;
  /** The weights read the token counter: the sums are recounted when the context's counter changes. */
  readonly countsTokens: boolean;
}

export class IncrementalCut {
  readonly #input = new SplitInput();
  readonly #sums: PrefixSums[];
  readonly #cut = new SteppedCut();
  readonly #out = new CutOutput();
  #counter: TokenCounter | undefined;
  /** Input positions below it are unchanged since the last request (the last `sync`). */
  #from = 0;

  constructor(
    readonly name: string,
    readonly weights: readonly UnitWeight[],
    readonly options: IncrementalCutOptions,
  ) {
    this.#sums = weights.map(() => new PrefixSums());
  }

  /** Splits the grown input and brings every quantity's sums up to date; returns the split. */
  sync(input: MessageSource, context: CompactionContext): HistoryUnits {
    const { counter } = context;
    const { units, from, rebuilt } = this.#input.sync(input, context.explain.enabled);
    const recount = rebuilt || (this.options.countsTokens && counter !== this.#counter);
    this.#counter = counter;
    this.#from = from;
    const all = units.units;
    for (let k = 0; k < this.weights.length; k++) {
      const sums = this.#sums[k]!;
      const weight = this.weights[k]!;
      sums.invalidateFrom(recount ? 0 : units.lowestChanged);
      sums.update(units.length, (u) => (all[u]!.critical ? 0 : weight(units, u, counter)));
    }
    return units;
  }

  /** Σ weight `k` over the units a cut at `from` keeps (critical ones weigh 0): O(1). */
  kept(k: number, from: number): number {
    return this.#sums[k]!.suffix(from);
  }

  /**
   * Decides the cut on `units` (the last `sync`'s) — `fits(from, scale)`: what a cut at `from`
   * keeps is within scale × the limit, monotone in `from` — and brings the output up to date.
   * `reason` words the explain record of each dropped message (asked only when explain is on).
   */
  cut(units: HistoryUnits, fits: (from: number, scale: number) => boolean, targetRatio: number, explain: ExplainRecorder, reason: (cut: number) => string): LogStep {
    const cut = this.#cut.decide(units, fits, targetRatio);
    const rule = this.options.drops === "tail" ? tailRule(units, cut) : groupsRule(units, cut);
    this.#out.update(units, rule, this.#from, explain.enabled ? recorder(explain, this.name, reason(cut)) : undefined);
    return { output: this.#out.log, changed: !this.#out.isIdentity };
  }

  /** Forget the kept state (the next request rebuilds it). */
  reset(): void {
    this.#input.reset();
    this.#out.reset();
  }
}

function recorder(explain: ExplainRecorder, strategy: string, reason: string): Dropped {
  return (message, i) => explain.record(messageId(message, i), "dropped", strategy, reason);
}

/** Weight: the unit's stored messages (what maxMessages counts). */
export const unitMessages: UnitWeight = (units, u) => units.size(u);

/** Weight: the unit's tokens, as the request's counter counts each of its stored messages. */
export const unitTokens: UnitWeight = (units, u, counter) => {
  const members = units.units[u]!.members;
  const messages = units.messages;
  let tokens = 0;
  for (let k = 0; k < members.length; k++) {
    const stored = members[k]!.stored;
    if (stored >= 0) tokens += counter.countMessage(messages[stored]!);
  }
  return tokens;
};
