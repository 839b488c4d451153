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
import { messageId, SplitInput } from "../history-units.js";
import { SteppedCut } from "../stepped-cut.js";
import { CutOutput, tailRule } from "../cut-output.js";
import { ArraySource, PrefixSums, type IncrementalStrategy, type LogStep, type MessageSource } from "../message-log.js";
import { defineStrategy } from "@amplifier-ts/contracts";

export const truncationOptions = z
  .object({
    maxMessages: z.number().int().positive().optional(),
    maxChars: z.number().int().positive().optional(),
    targetRatio: z.number().gt(0).lte(1).default(1),
  })
  .strict();
export type TruncationOptions = z.output<typeof truncationOptions>;

export class TruncationCompaction implements CompactionStrategy, IncrementalStrategy {
  readonly name = "truncation";
  /** The split of the input, grown with it (SplitInput): O(new messages) per request. */
  readonly #input = new SplitInput();
  readonly #arrays = new ArraySource();
  #count = new PrefixSums();
  #chars = new PrefixSums();
  readonly #cut = new SteppedCut();
  readonly #out = new CutOutput();

  constructor(readonly options: TruncationOptions) {}

  compact(messages: readonly Message[], context: CompactionContext): Message[] {
    return this.compactLog(this.#arrays.set(messages), context).output.items.slice();
  }

  resetLog(): void {
    this.#input.reset();
    this.#out.reset();
  }

  compactLog(input: MessageSource, context: CompactionContext): LogStep {
    const { maxMessages = Infinity, maxChars = Infinity, targetRatio } = this.options;
    if (maxMessages === Infinity && maxChars === Infinity) return { output: input, changed: false };
    const { explain } = context;
    const { units, from, rebuilt } = this.#input.sync(input, explain.enabled);
    if (rebuilt) {
      this.#count = new PrefixSums();
      this.#chars = new PrefixSums();
    } else {
      this.#count.invalidateFrom(units.lowestChanged);
      this.#chars.invalidateFrom(units.lowestChanged);
    }
    const count = this.#count;
    const chars = this.#chars;
    const messages = units.messages;
    count.update(units.length, (u) => (units.units[u]!.critical ? 0 : units.size(u)));
    chars.update(units.length, (u) => (units.units[u]!.critical ? 0 : units.positions(u).reduce((n, i) => n + textLength(messages[i]!), 0)));
    const fits = (f: number, scale: number) => count.suffix(f) <= Math.floor(scale * maxMessages) && chars.suffix(f) <= Math.floor(scale * maxChars);
    const cut = this.#cut.decide(units, fits, targetRatio);
    const reason = explain.enabled ? `oldest messages dropped to stay within ${describeLimits(this.options)}` : "";
    this.#out.update(units, tailRule(units, cut), from, explain.enabled ? (m, i) => explain.record(messageId(m, i), "dropped", this.name, reason) : undefined);
    return { output: this.#out.log, changed: !this.#out.isIdentity };
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
