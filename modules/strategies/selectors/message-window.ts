/**
 * `message-window` {n, targetRatio = 0.7}: the n most recent user/assistant messages (Steamship
 * seed: MessageWindowMessageSelector), system messages kept.
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
import type { CompactionContext, CompactionStrategy } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { messageId, SplitInput } from "../history-units.js";
import { SteppedCut } from "../stepped-cut.js";
import { CutOutput, tailRule } from "../cut-output.js";
import { ArraySource, PrefixSums, type IncrementalStrategy, type LogStep, type MessageSource } from "../message-log.js";
import { defineStrategy } from "@amplifier-ts/contracts";

export const messageWindowOptions = z
  .object({
    n: z.number().int().positive(),
    targetRatio: z.number().gt(0).lte(1).default(0.7),
  })
  .strict();
export type MessageWindowOptions = z.output<typeof messageWindowOptions>;

export class MessageWindowSelector implements CompactionStrategy, IncrementalStrategy {
  readonly name = "message-window";
  /** The split of the input, grown with it (SplitInput): O(new messages) per request. */
  readonly #input = new SplitInput();
  readonly #arrays = new ArraySource();
  #sums = new PrefixSums();
  readonly #cut = new SteppedCut();
  readonly #out = new CutOutput();

  constructor(readonly options: MessageWindowOptions) {}

  compact(messages: readonly Message[], context: CompactionContext): Message[] {
    return this.compactLog(this.#arrays.set(messages), context).output.items.slice();
  }

  resetLog(): void {
    this.#input.reset();
    this.#out.reset();
  }

  compactLog(input: MessageSource, context: CompactionContext): LogStep {
    const { n, targetRatio } = this.options;
    const { explain } = context;
    const { units, from, rebuilt } = this.#input.sync(input, explain.enabled);
    if (rebuilt) this.#sums = new PrefixSums();
    else this.#sums.invalidateFrom(units.lowestChanged);
    const sums = this.#sums;
    sums.update(units.length, (u) => (units.units[u]!.critical ? 0 : 1));
    const limit = (scale: number) => (scale === 1 ? n : Math.max(1, Math.floor(scale * n)));
    const cut = this.#cut.decide(units, (f, scale) => sums.suffix(f) <= limit(scale), targetRatio);
    const reason = explain.enabled ? `outside the ${n} most recent user/assistant messages` : "";
    this.#out.update(units, tailRule(units, cut), from, explain.enabled ? (m, i) => explain.record(messageId(m, i), "dropped", this.name, reason) : undefined);
    return { output: this.#out.log, changed: !this.#out.isIdentity };
  }
}

export const messageWindowStrategy = defineStrategy({
  name: "message-window",
  description: "the n most recent user/assistant messages (a tool call and its results count as one, kept whole)",
  optionsSchema: messageWindowOptions,
  create: (options) => new MessageWindowSelector(options),
});
