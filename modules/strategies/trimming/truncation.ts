/**
 * `truncation` {maxMessages?, maxChars?, targetRatio = 1}: the hard backstop. Drops the oldest
 * units until the rest is within BOTH limits; a limit left out is no limit. Counted: non-instruction, non-critical messages (maxMessages; hook turn notes
 * count, they are conversation) and their text characters — content, tool results, tool call
 * arguments, thinking (maxChars). Instructions and critical messages are always kept, on top of
 * the limits.
 *
 * Cuts fall between units (a tool call and its results go together; the prompt of the turn the cut
 * falls in is kept). targetRatio < 1 makes the cut move in steps like sliding-window's; the
 * default 1 cuts exactly at the limit, as a backstop should.
 */
import { z } from "zod";
import { textLength } from "@amplifier-ts/window";
import { defineCutStrategy, type CutStrategy } from "../define-cut-strategy.js";
import type { HistoryUnits } from "../history-units.js";
import { unitMessages } from "../incremental-cut.js";

export const truncationStrategy = defineCutStrategy({
  name: "truncation",
  description: "hard backstop: drop the oldest until within maxMessages and maxChars",
  options: { maxMessages: z.number().int().positive().optional(), maxChars: z.number().int().positive().optional() },
  targetRatio: 1,
  idle: (o) => o.maxMessages === undefined && o.maxChars === undefined,
  weight: unitMessages,
  limit: ({ maxMessages = Infinity }, scale) => Math.floor(scale * maxMessages),
  also: { weight: unitChars, limit: ({ maxChars = Infinity }, scale) => Math.floor(scale * maxChars) },
  reason: (o) => `oldest messages dropped to stay within ${describeLimits(o)}`,
});

export const { optionsSchema: truncationOptions, Strategy: TruncationCompaction } = truncationStrategy;
export type TruncationOptions = z.output<typeof truncationOptions>;
export type TruncationCompaction = CutStrategy<TruncationOptions>;

/** Weight: the text characters of the unit's stored messages (content, tool results, call arguments, thinking). */
function unitChars(units: HistoryUnits, u: number): number {
  let chars = 0;
  for (const member of units.units[u]!.members) if (member.stored >= 0) chars += textLength(units.messages[member.stored]!);
  return chars;
}

function describeLimits(o: { maxMessages?: number; maxChars?: number }): string {
  return [o.maxMessages !== undefined ? `${o.maxMessages} messages` : "", o.maxChars !== undefined ? `${o.maxChars} characters` : ""].filter(Boolean).join(" and ");
}
