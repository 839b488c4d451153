/**
 * What fitWindow(…, { report: true }) says about the window, in the caller's terms: one decision
 * per item given (by its index in the caller's array), and the engine's own report beside it.
 *
 * | action      | the item …                                                                 |
 * |-------------|-----------------------------------------------------------------------------|
 * | `kept`      | is in the window as given (the same object)                                 |
 * | `truncated` | is in the window changed: a result or prompt truncated, or only some of its parts (an orphan result removed) |
 * | `dropped`   | is not in the window                                                        |
 *
 * `reason` is the engine's (window-report.ts, DecisionReason: `in-window`, `instruction`,
 * `before-cut`, `result-cap`, `orphan-result`, …), or `strategy` for an item a strategy removed
 * before the final fit, or `empty` for an item that carries no message (an empty tool message).
 */
import type { Message } from "@amplifier-ts/contracts";
import type { Group } from "./fit-codec.js";
import type { WindowFormat } from "./fit-formats.js";
import type { AssembledWindow } from "./window-assembler.js";
import type { DecisionReason, WindowDecision, WindowReport } from "./window-report.js";

export type FitItemAction = "kept" | "truncated" | "dropped";

export interface FitItemDecision {
  /** Index of the item in the array given. */
  readonly index: number;
  readonly action: FitItemAction;
  readonly reason: DecisionReason | "strategy" | "empty";
}

export interface FitReport {
  readonly format: WindowFormat;
  readonly budget: number;
  /** Request tokens of the window: messages + reply priming + tool definitions (exact, by the model's counter). */
  readonly tokens: number;
  readonly toolTokens: number;
  /** Request tokens the whole history would need (see WindowReport.historyTokens: estimated below the counted part). */
  readonly historyTokens: number;
  /** Items given. */
  readonly given: number;
  /** Items in the window: kept + truncated + created. */
  readonly sent: number;
  readonly kept: number;
  readonly truncated: number;
  readonly dropped: number;
  /** Items the window made: a placeholder for omitted history, results for interrupted calls, strategies' messages. */
  readonly created: number;
  /** The cut moved past the first turn, or a result or prompt was truncated. */
  readonly compacted: boolean;
  /** One per item given, in order. */
  readonly items: readonly FitItemDecision[];
  /** The engine's report (over the converted messages). */
  readonly window: WindowReport;
}

/** The window written in the caller's format (window-fitter.ts). */
export interface Written {
  readonly items: unknown[];
  /** Caller's items sent as they were. */
  readonly kept: number;
  /** Caller's items sent changed (truncated, or some of their parts). */
  readonly rewritten: number;
  /** Items made (placeholder, interrupted results, strategies' messages). */
  readonly created: number;
  /** Each group the window holds: true when sent as the caller's items, false when rewritten. */
  readonly sentGroups: ReadonlyMap<Group, boolean>;
}

export interface FitReportInput {
  readonly format: WindowFormat;
  readonly given: number;
  readonly window: AssembledWindow;
  readonly written: Written;
  readonly source: readonly Message[];
  readonly groups: readonly Group[];
  readonly groupOf: WeakMap<Message, Group>;
}

export function fitReport(input: FitReportInput): FitReport {
  const { window, written, source, groups, groupOf } = input;
  const reasons = new Map<Group, WindowDecision[]>();
  for (const decision of window.report.decisions ?? []) {
    if (decision.index < 0) continue;
    const group = groupOf.get(source[decision.index]!);
    if (!group) continue;
    const list = reasons.get(group);
    if (list) list.push(decision);
    else reasons.set(group, [decision]);
  }
  const items: FitItemDecision[] = [];
  let kept = 0;
  let truncated = 0;
  for (const group of groups) {
    const whole = written.sentGroups.get(group);
    const decisions = reasons.get(group) ?? [];
    let action: FitItemAction;
    let reason: FitItemDecision["reason"];
    if (whole === true) {
      action = "kept";
      reason = decisions[0]?.reason ?? "in-window";
    } else if (whole === false) {
      action = "truncated";
      const changed = decisions.find((d) => d.action === "truncated") ?? decisions.find((d) => d.action === "dropped" || d.orphanResultsRemoved);
      reason = changed ? (changed.action === "truncated" ? changed.reason : "orphan-result") : "in-window";
    } else {
      action = "dropped";
      reason = group.messages.length === 0 ? "empty" : (decisions.find((d) => d.action === "dropped")?.reason ?? "strategy");
    }
    for (let i = group.first; i < group.first + group.count; i++) items.push({ index: i, action, reason });
    if (action === "kept") kept += group.count;
    else if (action === "truncated") truncated += group.count;
  }
  const report = window.report;
  return {
    format: input.format,
    budget: report.budget,
    tokens: report.windowTokens,
    toolTokens: report.toolTokens,
    historyTokens: report.historyTokens,
    given: input.given,
    sent: written.items.length,
    kept,
    truncated,
    dropped: input.given - kept - truncated,
    created: written.created,
    compacted: report.compacted,
    items,
    window: report,
  };
}
