/**
 * The one builder of `context:pre_compact` / `context:post_compact` (contracts/events.ts).
 *
 * | when                                                                 |
 * |----------------------------------------------------------------------|
 * | the window compacted, or repaired (a crash mid-tool, orphan results), or a pipeline strategy changed something |
 * | and someone listens (a bus without `hasListeners` is assumed to)     |
 *
 * | field                    | rule                                                          |
 * |--------------------------|---------------------------------------------------------------|
 * | pre.messageCount, tokens | the stored history (its token total with reply priming and tools) |
 * | pre.budget               | the request's budget                                          |
 * | post.messageCount, tokens| the window                                                    |
 * | post.removed             | stored messages not in the window (by id; synthetic messages never count as stored) |
 * | post.truncated           | window messages marked `metadata.window.truncated`            |
 * | post.summarized          | messages the window's summaries cover (`metadata.summary.covers`) |
 * | post.repaired            | the window report's repairs                                   |
 *
 * Where the history's totals come from is the caller's: when the window was assembled over the
 * stored history itself, the window's report accounts for it; over a pipeline's output, the report
 * describes that output, so the totals come from history-tally.ts (every stored original counts,
 * e.g. long tool results behind their compacted copies).
 */
import type { AmplifierEvents, CompactionCostDecision, HookBusContract, Message } from "@amplifier-ts/contracts";
import { idOf } from "@amplifier-ts/contracts";
import { windowMarkOf, type WindowReport } from "@amplifier-ts/window";

export interface CompactionFacts {
  readonly history: {
    readonly messageCount: number;
    /** Token total of the stored history, reply priming and tool definitions included. */
    readonly tokens: number;
    readonly ids: { has(id: string): boolean };
  };
  readonly window: readonly Message[];
  readonly report: WindowReport;
  /** Pipeline strategies that changed something, then "window". */
  readonly strategies: string[];
  /** Pipeline and assembler together. */
  readonly durationMs: number;
  /** Under config `compactionPolicy: "cost"`: the decision, carried by both events. */
  readonly decision?: CompactionCostDecision;
}

export interface CompactionEvents {
  readonly pre: AmplifierEvents["context:pre_compact"];
  readonly post: AmplifierEvents["context:post_compact"];
}

/** Whether this request is reported: it compacted, repaired, or a strategy changed something. */
export function isCompaction(report: WindowReport, changedByPipeline: boolean): boolean {
  return report.compacted || wasRepaired(report) || changedByPipeline;
}

/** Whether anyone would receive the events (a bus that cannot tell is assumed to). */
export function listensToCompaction(hooks: HookBusContract): boolean {
  if (!hooks.hasListeners) return true;
  return hooks.hasListeners("context:pre_compact") || hooks.hasListeners("context:post_compact");
}

export function compactionEvents(facts: CompactionFacts): CompactionEvents {
  const { history, window, report } = facts;
  let truncated = 0;
  let summarized = 0;
  let stored = 0;
  for (const m of window) {
    const mark = windowMarkOf(m);
    if (mark?.truncated) truncated++;
    const covers = m.metadata?.summary?.covers;
    if (Array.isArray(covers)) summarized += covers.length;
    const id = idOf(m);
    if (!mark?.synthetic && id !== undefined && history.ids.has(id)) stored++;
  }
  return {
    pre: { messageCount: history.messageCount, tokens: history.tokens, budget: report.budget, ...(facts.decision ? { decision: facts.decision } : {}) },
    post: {
      messageCount: report.windowMessages,
      tokens: report.windowTokens,
      removed: Math.max(0, history.messageCount - stored),
      truncated,
      summarized,
      strategies: facts.strategies,
      durationMs: facts.durationMs,
      repaired: report.repaired,
      ...(facts.decision ? { decision: facts.decision } : {}),
    },
  };
}

/**
 * Emits both events without waiting on their handlers: they are observer events (nothing in their
 * results changes the window), so a slow or hanging handler must not hold the request — awaited,
 * one that never settled cost 2 × the hook timeout on every compacting window. Both
 * dispatches start now, pre first; the bus still reports a throwing or timed-out handler as
 * `hook:error`. A fail-closed handler's rejection has no request left to fail: it is caught here
 * (the bus reported it before rejecting) so it never surfaces as an unhandled rejection.
 */
export function emitCompaction(hooks: HookBusContract, facts: CompactionFacts): void {
  const { pre, post } = compactionEvents(facts);
  hooks.emit("context:pre_compact", pre).catch(ignoreReported);
  hooks.emit("context:post_compact", post).catch(ignoreReported);
}

function ignoreReported(): void {}

function wasRepaired(report: WindowReport): boolean {
  return report.repaired.syntheticResults > 0 || report.repaired.orphansDropped > 0 || report.repaired.placeholder;
}
