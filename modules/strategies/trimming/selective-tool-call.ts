/**
 * `selective-tool-call` {keepRecentGroups = 5, targetRatio = 0.7}: drops whole old tool groups —
 * an assistant call and every result answering it, both tool styles — and keeps the most recent
 * ones (agents/context seed: SelectiveToolCallCompactionStrategy). Everything else (user turns,
 * plain assistant text, system messages, critical groups) is kept.
 *
 * Hysteresis (stepped-cut.ts): nothing is dropped while there are ≤ keepRecentGroups groups; past
 * that, the oldest groups go until ⌊targetRatio × keepRecentGroups⌋ remain, and that boundary
 * stays until more than keepRecentGroups groups follow it again. targetRatio = 1: exactly the
 * last N (the seed's behaviour; the window's prefix then changes at every new group).
 */
import { z } from "zod";
import type { CompactionContext, CompactionStrategy } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { messageId, SplitInput } from "../history-units.js";
import { SteppedCut } from "../stepped-cut.js";
import { CutOutput, type KeepRule } from "../cut-output.js";
import { ArraySource, PrefixSums, type IncrementalStrategy, type LogStep, type MessageSource } from "../message-log.js";
import { defineStrategy } from "@amplifier-ts/contracts";

export const selectiveToolCallOptions = z
  .object({
    keepRecentGroups: z.number().int().min(0).default(5),
    targetRatio: z.number().gt(0).lte(1).default(0.7),
  })
  .strict();
export type SelectiveToolCallOptions = z.output<typeof selectiveToolCallOptions>;

export class SelectiveToolCallCompaction implements CompactionStrategy, IncrementalStrategy {
  readonly name = "selective-tool-call";
  /** The split of the input, grown with it (SplitInput): O(new messages) per request. */
  readonly #input = new SplitInput();
  readonly #arrays = new ArraySource();
  #groups = new PrefixSums();
  readonly #cut = new SteppedCut();
  /** Everything but the old groups: a moved cut rewrites the output from the first group it drops (near the end). */
  readonly #out = new CutOutput();

  constructor(readonly options: SelectiveToolCallOptions) {}

  compact(messages: readonly Message[], context: CompactionContext): Message[] {
    return this.compactLog(this.#arrays.set(messages), context).output.items.slice();
  }

  resetLog(): void {
    this.#input.reset();
    this.#out.reset();
  }

  compactLog(input: MessageSource, context: CompactionContext): LogStep {
    const { keepRecentGroups, targetRatio } = this.options;
    const { explain } = context;
    const { units, from, rebuilt } = this.#input.sync(input, explain.enabled);
    if (rebuilt) this.#groups = new PrefixSums();
    else this.#groups.invalidateFrom(units.lowestChanged);
    const sums = this.#groups;
    sums.update(units.length, (u) => (units.units[u]!.kind === "group" && !units.units[u]!.critical ? 1 : 0));
    const limit = (scale: number) => (scale === 1 ? keepRecentGroups : Math.floor(scale * keepRecentGroups));
    const cut = this.#cut.decide(units, (f, scale) => sums.suffix(f) <= limit(scale), targetRatio);
    const reason = explain.enabled ? `tool call older than the ${keepRecentGroups} most recent tool groups` : "";
    const rule: KeepRule = cut === 0 ? { kind: "all" } : { kind: "groups", cut };
    this.#out.update(units, rule, from, explain.enabled ? (m, i) => explain.record(messageId(m, i), "dropped", this.name, reason) : undefined);
    return { output: this.#out.log, changed: !this.#out.isIdentity };
  }
}

export const selectiveToolCallStrategy = defineStrategy({
  name: "selective-tool-call",
  description: "drop whole old tool call + result groups, keep the most recent keepRecentGroups",
  optionsSchema: selectiveToolCallOptions,
  create: (options) => new SelectiveToolCallCompaction(options),
});
