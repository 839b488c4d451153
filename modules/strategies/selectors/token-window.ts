/**
 * `token-window` {maxTokens, targetRatio = 0.7}: the most recent user/assistant messages up to
 * maxTokens, system messages kept.
 *
 * CONTIGUOUS: walking back from the newest end, the window stops at the first unit that does not
 * fit — it never skips it to take an older, smaller one (a window with a hole reads as a different
 * conversation). Units are those of message-window.ts: a tool call and all its results are one
 * unit, counted with all their tokens, kept whole or not at all.
 *
 * | what                               | counted against maxTokens |
 * |------------------------------------|---------------------------|
 * | units inside the window            | yes (counter.countMessage of each message) |
 * | instructions (system / developer, not hook turn notes) | no: always kept |
 * | hook turn notes                    | yes, with their unit (the notes before a prompt are in its turn) |
 * | critical units                     | no: always kept           |
 * | the prompt added when the window does not start at a user turn | no (see message-window.ts) |
 *
 * When even the newest unit does not fit, the window holds no counted unit (then only that turn's
 * prompt, instructions and critical messages), and the context manager's budget step decides
 * (it may truncate the newest unit). Cache-friendly cut: as message-window, on tokens. A suffix
 * sum only grows going back, so the lowest fitting start is where the walk back stops.
 */
import { z } from "zod";
import { defineCutStrategy, type CutStrategy } from "../define-cut-strategy.js";
import { unitTokens } from "../incremental-cut.js";

export const tokenWindowStrategy = defineCutStrategy({
  name: "token-window",
  description: "the most recent user/assistant messages up to maxTokens, contiguous (stops at the first that does not fit)",
  options: { maxTokens: z.number().int().positive() },
  weight: unitTokens,
  countsTokens: true,
  limit: ({ maxTokens }, scale) => scale * maxTokens,
  reason: ({ maxTokens }) => `older than the most recent ${maxTokens} tokens of conversation`,
});

export const { optionsSchema: tokenWindowOptions, Strategy: TokenWindowSelector } = tokenWindowStrategy;
export type TokenWindowOptions = z.output<typeof tokenWindowOptions>;
export type TokenWindowSelector = CutStrategy<TokenWindowOptions>;
