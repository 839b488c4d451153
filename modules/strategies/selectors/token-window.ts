/**
 * `token-window` {maxTokens, targetRatio = 0.7}: the most recent user/assistant messages up to
 * maxTokens (Steamship seed: TokenWindowMessageSelector), system messages kept.
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
 * (it may truncate the newest unit). Cache-friendly cut: as message-window, on tokens.
 */
import { z } from "zod";
import type { CompactionContext, CompactionStrategy } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { messageId, SplitInput } from "../history-units.js";
import { SteppedCut } from "../stepped-cut.js";
import { CutOutput, tailRule } from "../cut-output.js";
import { UnitTokenSums } from "../unit-token-sums.js";
import { ArraySource, type IncrementalStrategy, type LogStep, type MessageSource } from "../message-log.js";
import { defineStrategy } from "@amplifier-ts/contracts";

export const tokenWindowOptions = z
  .object({
    maxTokens: z.number().int().positive(),
    targetRatio: z.number().gt(0).lte(1).default(0.7),
  })
  .strict();
export type TokenWindowOptions = z.output<typeof tokenWindowOptions>;

export class TokenWindowSelector implements CompactionStrategy, IncrementalStrategy {
  readonly name = "token-window";
  /** The split of the input, grown with it (SplitInput): O(new messages) per request. */
  readonly #input = new SplitInput();
  readonly #arrays = new ArraySource();
  readonly #sums = new UnitTokenSums();
  readonly #cut = new SteppedCut();
  readonly #out = new CutOutput();

  constructor(readonly options: TokenWindowOptions) {}

  compact(messages: readonly Message[], context: CompactionContext): Message[] {
    return this.compactLog(this.#arrays.set(messages), context).output.items.slice();
  }

  resetLog(): void {
    this.#input.reset();
    this.#out.reset();
  }

  compactLog(input: MessageSource, context: CompactionContext): LogStep {
    const { maxTokens, targetRatio } = this.options;
    const { counter, explain } = context;
    const { units, from, rebuilt } = this.#input.sync(input, explain.enabled);
    const sums = this.#sums.update(units, rebuilt, counter);
    // A suffix sum only grows going back, so the lowest fitting start is where the walk back stops.
    const cut = this.#cut.decide(units, (f, scale) => sums.suffix(f) <= scale * maxTokens, targetRatio);
    const reason = explain.enabled ? `older than the most recent ${maxTokens} tokens of conversation` : "";
    this.#out.update(units, tailRule(units, cut), from, explain.enabled ? (m, i) => explain.record(messageId(m, i), "dropped", this.name, reason) : undefined);
    return { output: this.#out.log, changed: !this.#out.isIdentity };
  }
}

export const tokenWindowStrategy = defineStrategy({
  name: "token-window",
  description: "the most recent user/assistant messages up to maxTokens, contiguous (stops at the first that does not fit)",
  optionsSchema: tokenWindowOptions,
  create: (options) => new TokenWindowSelector(options),
});
