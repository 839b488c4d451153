/**
 * `message-window` {n, targetRatio = 0.7}: the n most recent user/assistant messages, system messages kept.
 *
 * What counts toward n, and how tool groups are treated (decided here, for both tool styles):
 *
 * | message                                  | counts | kept when                                   |
 * |------------------------------------------|--------|---------------------------------------------|
 * | instruction (system / developer, not a hook turn note) | 0 | always                          |
 * | hook turn notes                          | with their unit: the notes before a prompt are part of its turn (1 in all); a run of notes elsewhere counts 1 | inside the window |
 * | user turn, assistant text                | 1      | inside the window                           |
 * | tool group (assistant call + ALL results) | 1      | WHOLE, when its call is inside the window; never split, never half |
 * | critical message (its whole unit)        | 0      | always, verbatim                            |
 * | orphan result (its call is gone)         | 0      | only after the window start (the assembler drops it anyway) |
 *
 * A group counts as the one assistant message that made the calls — its results belong to it and
 * are not chat messages. Groups are KEPT rather than excluded: inside an agent loop the newest
 * messages are often a call and its results, and a window without them would ask the model to
 * repeat work it just did. The window is contiguous from the newest end; when it does not start at
 * a user turn, the prompt of the turn it falls in is added (the model must see what it is
 * answering), so a window may hold n + 1 counted messages.
 *
 * Cache-friendly cut (stepped-cut.ts): once more than n messages follow the window start, it jumps
 * so ⌊targetRatio × n⌋ (≥ 1) remain, and stays until more than n follow it again. targetRatio = 1:
 * exactly the n most recent, every turn.
 */
import { z } from "zod";
import { defineCutStrategy, type CutStrategy } from "../define-cut-strategy.js";

export const messageWindowStrategy = defineCutStrategy({
  name: "message-window",
  description: "the n most recent user/assistant messages (a tool call and its results count as one, kept whole)",
  options: { n: z.number().int().positive() },
  weight: () => 1,
  limit: ({ n }, scale) => Math.max(1, Math.floor(scale * n)),
  reason: ({ n }) => `outside the ${n} most recent user/assistant messages`,
});

export const { optionsSchema: messageWindowOptions, Strategy: MessageWindowSelector } = messageWindowStrategy;
export type MessageWindowOptions = z.output<typeof messageWindowOptions>;
export type MessageWindowSelector = CutStrategy<MessageWindowOptions>;
