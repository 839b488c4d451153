/**
 * `context:pre_compact` / `context:post_compact` (contracts/events.ts) for one request.
 *
 * Reported when the window compacted, repaired (a crash mid-tool, orphan results — issue 4), or a
 * pipeline strategy changed something.
 */
import type { HookBusContract, Message } from "@amplifier-ts/contracts";
import type { TokenCounter } from "@amplifier-ts/core";
import type { WindowReport } from "@amplifier-ts/window";
import type { HistoryTotals } from "./history-tally.js";

/** Events of a window assembled over the stored history itself: the report accounts for it. */
export async function emitWindowCompaction(hooks: HookBusContract, report: WindowReport): Promise<void> {
  await hooks.emit("context:pre_compact", {
    messageCount: report.historyMessages,
    tokens: report.historyTokens,
    budget: report.budget,
  });
  await hooks.emit("context:post_compact", {
    messageCount: report.windowMessages,
    tokens: report.windowTokens,
    removed: report.removed,
    truncated: report.truncated,
    summarized: 0,
    strategies: ["window"],
    durationMs: report.durationMs,
    repaired: report.repaired,
  });
}

export interface PipelineCompaction {
  readonly history: readonly Message[];
  readonly totals: HistoryTotals;
  readonly window: readonly Message[];
  readonly report: WindowReport;
  readonly counter: TokenCounter;
  readonly toolTokens: number;
  readonly strategies: string[];
  readonly durationMs: number;
}

/**
 * Events of a window assembled over a pipeline's output: the report describes that output, so the
 * history's numbers come from the tally (every stored original counts, e.g. long tool results
 * behind their compacted copies).
 */
export async function emitPipelineCompaction(hooks: HookBusContract, c: PipelineCompaction): Promise<void> {
  await hooks.emit("context:pre_compact", {
    messageCount: c.history.length,
    tokens: c.totals.tokens + c.counter.replyPriming + c.toolTokens,
    budget: c.report.budget,
  });
  let truncated = 0;
  let summarized = 0;
  let stored = 0;
  for (const m of c.window) {
    const mark = m.metadata?.window as { truncated?: unknown; synthetic?: unknown } | undefined;
    if (mark?.truncated) truncated++;
    const covers = m.metadata?.summary?.covers;
    if (Array.isArray(covers)) summarized += covers.length;
    if (!mark?.synthetic && typeof m.metadata?.id === "string" && c.totals.ids.has(m.metadata.id)) stored++;
  }
  await hooks.emit("context:post_compact", {
    messageCount: c.report.windowMessages,
    tokens: c.report.windowTokens,
    removed: Math.max(0, c.history.length - stored),
    truncated,
    summarized,
    strategies: c.strategies,
    durationMs: c.durationMs,
    repaired: c.report.repaired,
  });
}

export function wasRepaired(report: WindowReport): boolean {
  return report.repaired.syntheticResults > 0 || report.repaired.orphansDropped > 0 || report.repaired.placeholder;
}

/** Whether anyone would receive the events (a bus that cannot tell is assumed to). */
export function listensToCompaction(hooks: HookBusContract): boolean {
  if (!hooks.hasListeners) return true;
  return hooks.hasListeners("context:pre_compact") || hooks.hasListeners("context:post_compact");
}
