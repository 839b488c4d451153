/**
 * `selective-tool-call` {keepRecentGroups = 5, targetRatio = 0.7}: drops whole old tool groups —
 * an assistant call and every result answering it, both tool styles — and keeps the most recent
 * ones. Everything else (user turns,
 * plain assistant text, system messages, critical groups) is kept.
 *
 * Hysteresis (stepped-cut.ts): nothing is dropped while there are ≤ keepRecentGroups groups; past
 * that, the oldest groups go until ⌊targetRatio × keepRecentGroups⌋ remain, and that boundary
 * stays until more than keepRecentGroups groups follow it again. targetRatio = 1: exactly the
 * last N (the window's prefix then changes at every new group).
 */
import { z } from "zod";
import { defineCutStrategy, type CutStrategy } from "../define-cut-strategy.js";

export const selectiveToolCallStrategy = defineCutStrategy({
  name: "selective-tool-call",
  description: "drop whole old tool call + result groups, keep the most recent keepRecentGroups",
  options: { keepRecentGroups: z.number().int().min(0).default(5) },
  // Everything but the old groups is kept: a moved cut rewrites the output from the first group it drops.
  drops: "groups",
  weight: (units, u) => (units.units[u]!.kind === "group" ? 1 : 0),
  limit: ({ keepRecentGroups }, scale) => Math.floor(scale * keepRecentGroups),
  reason: ({ keepRecentGroups }) => `tool call older than the ${keepRecentGroups} most recent tool groups`,
});

export const { optionsSchema: selectiveToolCallOptions, Strategy: SelectiveToolCallCompaction } = selectiveToolCallStrategy;
export type SelectiveToolCallOptions = z.output<typeof selectiveToolCallOptions>;
export type SelectiveToolCallCompaction = CutStrategy<SelectiveToolCallOptions>;
