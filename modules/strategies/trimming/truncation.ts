/**
 * `truncation` {maxMessages?, maxChars?, targetRatio = 1}: the hard backstop (agents/context seed:
 * TruncationStrategy). Drops the oldest units until the rest is within BOTH limits; a limit left
 * out is no limit. Counted: non-instruction, non-critical messages (maxMessages; hook turn notes
 * count, they are conversation) and their text characters — content, tool results, tool call
 * arguments, thinking (maxChars). Instructions and critical messages are always kept, on top of
 * the limits.
 *
 * Cuts fall between units (a tool call and its results go together; the prompt of the turn the cut
 * falls in is kept). targetRatio < 1 makes the cut move in steps like sliding-window's; the
 * default 1 cuts exactly at the limit, as a backstop should.
 */
import { z } from "zod";
import type { CompactionContext, CompactionStrategy } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { textLength } from "@amplifier-ts/window";
import { HistoryUnits, messageId } from "../history-units.js";
import { SteppedCut, suffixSums } from "../stepped-cut.js";
import { defineStrategy } from "@amplifier-ts/contracts";

export const truncationOptions = z
  .object({
    maxMessages: z.number().int().positive().optional(),
    maxChars: z.number().int().positive().optional(),
    targetRatio: z.number().gt(0).lte(1).default(1),
  })
  .strict();
export type TruncationOptions = z.output<typeof truncationOptions>;

export class TruncationCompaction implements CompactionStrategy {
  readonly name = "truncation";
  /** The split of the previous input, extended while the history only grows (HistoryUnits.extend). */
  #units: HistoryUnits | undefined;
  readonly #cut = new SteppedCut();

  constructor(readonly options: TruncationOptions) {}

  compact(messages: readonly Message[], context: CompactionContext): Message[] {
    const { maxMessages = Infinity, maxChars = Infinity, targetRatio } = this.options;
    if (maxMessages === Infinity && maxChars === Infinity) return [...messages];
    const units = (this.#units = HistoryUnits.extend(this.#units, messages));
    const count = suffixSums(units, (u) => units.size(u));
    const chars = suffixSums(units, (u) => units.positions(u).reduce((n, i) => n + textLength(messages[i]!), 0));
    const fits = (from: number, scale: number) => count[from]! <= Math.floor(scale * maxMessages) && chars[from]! <= Math.floor(scale * maxChars);
    const cut = this.#cut.decide(units, fits, targetRatio);
    if (cut === 0) return [...messages];
    const { explain } = context;
    const reason = explain.enabled ? `oldest messages dropped to stay within ${describeLimits(this.options)}` : "";
    return units.keepFrom(cut, explain.enabled ? (m, i) => explain.record(messageId(m, i), "dropped", this.name, reason) : undefined);
  }
}

function describeLimits(o: TruncationOptions): string {
  return [o.maxMessages !== undefined ? `${o.maxMessages} messages` : "", o.maxChars !== undefined ? `${o.maxChars} characters` : ""].filter(Boolean).join(" and ");
}

export const truncationStrategy = defineStrategy({
  name: "truncation",
  description: "hard backstop: drop the oldest until within maxMessages and maxChars",
  optionsSchema: truncationOptions,
  create: (options) => new TruncationCompaction(options),
});
