/**
 * `sliding-window` {maxMessages = 100, targetRatio = 0.7}: system messages plus the most recent
 * messages.
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
import { defineCutStrategy, type CutStrategy } from "../define-cut-strategy.js";
import { unitMessages } from "../incremental-cut.js";

export const slidingWindowStrategy = defineCutStrategy({
  name: "sliding-window",
  description: "system + the most recent maxMessages messages; the cut moves in steps (targetRatio)",
  options: { maxMessages: z.number().int().positive().default(100) },
  weight: unitMessages,
  limit: ({ maxMessages }, scale) => Math.max(1, Math.floor(scale * maxMessages)),
  reason: ({ maxMessages }, units, cut) => `older than the most recent ${maxMessages} messages (window starts at ${units.firstIdOf(cut) ?? "the end"})`,
});

export const { optionsSchema: slidingWindowOptions, Strategy: SlidingWindowCompaction } = slidingWindowStrategy;
export type SlidingWindowOptions = z.output<typeof slidingWindowOptions>;
export type SlidingWindowCompaction = CutStrategy<SlidingWindowOptions>;
