/**
 * `sliding-window` {maxMessages = 100, targetRatio = 0.7}: system messages plus the most recent
 * messages (agents/context seed: SlidingWindowCompaction; core contexts seed: system + last N).
 *
 * - Counts non-instruction, non-critical messages (hook turn notes count: they are conversation);
 *   instructions and critical messages are always kept on top.
 * - Cuts between units only (history-units.ts): a tool call and all its results stay together;
 *   when the cut is not at a user turn, that turn's prompt is kept too (the window must open with
 *   a user turn), so a window may hold maxMessages + 1 messages.
 * - Hysteresis (stepped-cut.ts): nothing is cut while the history has ≤ maxMessages; past that,
 *   the cut jumps so ⌊targetRatio × maxMessages⌋ (≥ 1) recent messages are kept, and STAYS there
 *   until the messages after it exceed maxMessages again. Consecutive windows share their prefix.
 */
import { z } from "zod";
import type { CompactionContext, CompactionStrategy } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { messageId, SplitInput } from "../history-units.js";
import { SteppedCut } from "../stepped-cut.js";
import { CutOutput, tailRule } from "../cut-output.js";
import { ArraySource, PrefixSums, type IncrementalStrategy, type LogStep, type MessageSource } from "../message-log.js";
import { defineStrategy } from "@amplifier-ts/contracts";

export const slidingWindowOptions = z
  .object({
    maxMessages: z.number().int().positive().default(100),
    targetRatio: z.number().gt(0).lte(1).default(0.7),
  })
  .strict();
export type SlidingWindowOptions = z.output<typeof slidingWindowOptions>;

export class SlidingWindowCompaction implements CompactionStrategy, IncrementalStrategy {
  readonly name = "sliding-window";
  /** The split of the input, grown with it (SplitInput): O(new messages) per request. */
  readonly #input = new SplitInput();
  readonly #arrays = new ArraySource();
  #sums = new PrefixSums();
  readonly #cut = new SteppedCut();
  readonly #out = new CutOutput();

  constructor(readonly options: SlidingWindowOptions) {}

  compact(messages: readonly Message[], context: CompactionContext): Message[] {
    return this.compactLog(this.#arrays.set(messages), context).output.items.slice();
  }

  resetLog(): void {
    this.#input.reset();
    this.#out.reset();
  }

  compactLog(input: MessageSource, context: CompactionContext): LogStep {
    const { maxMessages, targetRatio } = this.options;
    const { explain } = context;
    const { units, from, rebuilt } = this.#input.sync(input, explain.enabled);
    if (rebuilt) this.#sums = new PrefixSums();
    else this.#sums.invalidateFrom(units.lowestChanged);
    const sums = this.#sums;
    sums.update(units.length, (u) => (units.units[u]!.critical ? 0 : units.size(u)));
    const limit = (scale: number) => (scale === 1 ? maxMessages : Math.max(1, Math.floor(scale * maxMessages)));
    const cut = this.#cut.decide(units, (f, scale) => sums.suffix(f) <= limit(scale), targetRatio);
    const reason = explain.enabled ? `older than the most recent ${maxMessages} messages (window starts at ${units.firstIdOf(cut) ?? "the end"})` : "";
    this.#out.update(units, tailRule(units, cut), from, explain.enabled ? (m, i) => explain.record(messageId(m, i), "dropped", this.name, reason) : undefined);
    return { output: this.#out.log, changed: !this.#out.isIdentity };
  }
}

export const slidingWindowStrategy = defineStrategy({
  name: "sliding-window",
  description: "system + the most recent maxMessages messages; the cut moves in steps (targetRatio)",
  optionsSchema: slidingWindowOptions,
  create: (options) => new SlidingWindowCompaction(options),
});
