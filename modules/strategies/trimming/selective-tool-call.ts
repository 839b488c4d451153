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
import { HistoryUnits, messageId } from "../history-units.js";
import { SteppedCut, suffixSums } from "../stepped-cut.js";
import { defineStrategy } from "@amplifier-ts/contracts";

export const selectiveToolCallOptions = z
  .object({
    keepRecentGroups: z.number().int().min(0).default(5),
    targetRatio: z.number().gt(0).lte(1).default(0.7),
  })
  .strict();
export type SelectiveToolCallOptions = z.output<typeof selectiveToolCallOptions>;

export class SelectiveToolCallCompaction implements CompactionStrategy {
  readonly name = "selective-tool-call";
  /** The split of the previous input, extended while the history only grows (HistoryUnits.extend). */
  #units: HistoryUnits | undefined;
  readonly #cut = new SteppedCut();

  constructor(readonly options: SelectiveToolCallOptions) {}

  compact(messages: readonly Message[], context: CompactionContext): Message[] {
    const { keepRecentGroups, targetRatio } = this.options;
    const units = (this.#units = HistoryUnits.extend(this.#units, messages));
    const isGroup = (u: number) => units.units[u]!.kind === "group";
    const sums = suffixSums(units, (u) => (isGroup(u) ? 1 : 0));
    const limit = (scale: number) => (scale === 1 ? keepRecentGroups : Math.floor(scale * keepRecentGroups));
    const cut = this.#cut.decide(units, (from, scale) => sums[from]! <= limit(scale), targetRatio);
    if (cut === 0) return [...messages];
    const keep = new Uint8Array(units.length);
    for (let u = 0; u < units.length; u++) keep[u] = u >= cut || !isGroup(u) || units.units[u]!.critical ? 1 : 0;
    const { explain } = context;
    const reason = explain.enabled ? `tool call older than the ${keepRecentGroups} most recent tool groups` : "";
    return units.select(keep, 0, explain.enabled ? (m, i) => explain.record(messageId(m, i), "dropped", this.name, reason) : undefined);
  }
}

export const selectiveToolCallStrategy = defineStrategy({
  name: "selective-tool-call",
  description: "drop whole old tool call + result groups, keep the most recent keepRecentGroups",
  optionsSchema: selectiveToolCallOptions,
  create: (options) => new SelectiveToolCallCompaction(options),
});
