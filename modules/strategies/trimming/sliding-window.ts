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
import { HistoryUnits, messageId } from "../history-units.js";
import { SteppedCut, suffixSums } from "../stepped-cut.js";
import { defineStrategy } from "@amplifier-ts/contracts";

export const slidingWindowOptions = z
  .object({
    maxMessages: z.number().int().positive().default(100),
    targetRatio: z.number().gt(0).lte(1).default(0.7),
  })
  .strict();
export type SlidingWindowOptions = z.output<typeof slidingWindowOptions>;

export class SlidingWindowCompaction implements CompactionStrategy {
  readonly name = "sliding-window";
  /** The split of the previous input, extended while the history only grows (HistoryUnits.extend). */
  #units: HistoryUnits | undefined;
  readonly #cut = new SteppedCut();

  constructor(readonly options: SlidingWindowOptions) {}

  compact(messages: readonly Message[], context: CompactionContext): Message[] {
    const { maxMessages, targetRatio } = this.options;
    const units = (this.#units = HistoryUnits.extend(this.#units, messages));
    const sums = suffixSums(units, (u) => units.size(u));
    const limit = (scale: number) => (scale === 1 ? maxMessages : Math.max(1, Math.floor(scale * maxMessages)));
    const cut = this.#cut.decide(units, (from, scale) => sums[from]! <= limit(scale), targetRatio);
    if (cut === 0) return [...messages];
    const { explain } = context;
    const reason = explain.enabled ? `older than the most recent ${maxMessages} messages (window starts at ${units.firstIdOf(cut) ?? "the end"})` : "";
    return units.keepFrom(cut, explain.enabled ? (m, i) => explain.record(messageId(m, i), "dropped", this.name, reason) : undefined);
  }
}

export const slidingWindowStrategy = defineStrategy({
  name: "sliding-window",
  description: "system + the most recent maxMessages messages; the cut moves in steps (targetRatio)",
  optionsSchema: slidingWindowOptions,
  create: (options) => new SlidingWindowCompaction(options),
});
