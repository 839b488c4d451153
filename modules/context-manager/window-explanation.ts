/**
 * Explain: why each stored message is or is not in the window. Merges what the compaction
 * pipeline's strategies recorded (explain-recorder.ts) with the window assembler's decisions over
 * the pipeline's output (window-report.ts); the assembler counts as strategy "window".
 *
 * | the message …                                              | decision / strategy                      |
 * |------------------------------------------------------------|------------------------------------------|
 * | was not returned by the pipeline, a strategy said why       | that strategy's dropped / summarized     |
 * | was not returned by the pipeline, nobody said why           | dropped / "pipeline"                     |
 * | was returned, the assembler dropped it                      | dropped / "window"                       |
 * | was returned shortened by a strategy                        | truncated / that strategy                |
 * | was returned, the assembler truncated it                    | truncated / "window"                     |
 * | otherwise                                                   | kept / "window" (instruction, in-window, critical …) |
 * | was sent as the excerpt of a spilled input (spilled-history.ts) | truncated / "spill", code "spilled", reason "spilled (N tokens → excerpt of M); …" |
 *
 * A hook turn note's window reason starts with "hook turn note, sent with its turn" (kept) or
 * "hook turn note, cut with its turn" (dropped).
 */
import type { CompactionCostDecision, ExplainDecision } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { ExplainLog } from "@amplifier-ts/strategies";
import type { DecisionReason, WindowDecision, WindowReport } from "@amplifier-ts/window";

/** The outcome of the last getMessagesForRequest, kept for explainLastWindow() and replay. */
export interface LastWindow {
  report: WindowReport;
  model: string;
  encoding: string;
  /** Strategies of the pipeline that changed something, then "window" (the assembler). */
  strategies: string[];
  /**
   * With `explain: true`: one entry per stored message — kept / truncated / summarized / dropped,
   * which strategy decided it ("window" = the window assembler) and why.
   */
  explanation?: MessageExplanation[];
  /** Under config `compactionPolicy: "cost"`: whether this window compacted and why (compaction-cost.ts). */
  compactionDecision?: CompactionCostDecision;
}

export interface MessageExplanation {
  /** Index in the stored history. */
  readonly index: number;
  readonly id: string | undefined;
  readonly role: Message["role"];
  readonly decision: ExplainDecision;
  /** The strategy that decided: a pipeline strategy's name, "window" or "pipeline". */
  readonly strategy: string;
  readonly reason: string;
  /** The window assembler's reason code (window-report.ts) when it decided; "removed-by-pipeline" when nobody said why. */
  readonly code?: DecisionReason | "removed-by-pipeline" | "spilled";
}

const WINDOW_REASONS: Record<DecisionReason, string> = {
  instruction: "system/developer instruction: always kept, first",
  critical: "critical (metadata.critical, or in a tool group with a critical member)",
  "in-window": "recent enough to fit the budget",
  "result-cap": "tool result cut to fit the budget",
  "note-cap": "opens the last prompt; cut to fit the budget (before the prompt is)",
  "prompt-cap": "the last prompt cut to fit the budget",
  "before-first-turn": "before the first kept user turn (a window starts with a user message)",
  "before-cut": "older than the window's cut (budget)",
  "older-in-turn": "older part of the last turn, dropped to fit the budget",
  "orphan-result": "tool result without its call",
  interrupted: "synthetic result for an interrupted call",
  placeholder: "placeholder for omitted history",
  "request-only": "request-only message",
  spilled: "too large for the window: sent as an excerpt of its stored text",
};

/** A hook turn note is explained as what it is: conversation of its turn, kept or cut with it. */
const NOTE_PREFIX: Record<WindowDecision["action"], string> = {
  kept: "hook turn note, sent with its turn",
  truncated: "hook turn note",
  dropped: "hook turn note, cut with its turn",
  synthetic: "hook turn note",
};

/** Where a message stands in `list`: by object, else by id (a repeated id: its last place); undefined where it is not in it. */
export function positionIn(list: readonly Message[]): (message: Message) => number | undefined {
  const byObject = new Map<Message, number>();
  const byId = new Map<string, number>();
  list.forEach((m, i) => {
    byObject.set(m, i);
    const id = m.metadata?.id;
    if (typeof id === "string") byId.set(id, i);
  });
  return (m) => {
    const id = m.metadata?.id;
    return byObject.get(m) ?? (typeof id === "string" ? byId.get(id) : undefined);
  };
}

export function explainWindow(
  history: readonly Message[],
  output: readonly Message[],
  decisions: readonly WindowDecision[],
  log: ExplainLog | undefined,
): MessageExplanation[] {
  const decisionAt = new Map<number, WindowDecision>();
  for (const d of decisions) if (d.index >= 0) decisionAt.set(d.index, d);
  const positionOf = positionIn(output);
  const entries = log?.byMessage();
  return history.map((m, index) => {
    const id = typeof m.metadata?.id === "string" ? m.metadata.id : undefined;
    const base = { index, id, role: m.role };
    const entry = id === undefined ? undefined : entries?.get(id);
    const position = positionOf(m);
    const d = position === undefined ? undefined : decisionAt.get(position);
    if (position === undefined || d === undefined) {
      if (entry) return { ...base, decision: entry.decision, strategy: entry.strategy, reason: entry.reason };
      return { ...base, decision: "dropped" as const, strategy: "pipeline", reason: "not returned by the compaction pipeline", code: "removed-by-pipeline" as const };
    }
    const windowReason = d.note ? `${NOTE_PREFIX[d.action]}: ${WINDOW_REASONS[d.reason]}` : WINDOW_REASONS[d.reason];
    if (d.action === "dropped") return { ...base, decision: "dropped" as const, strategy: "window", reason: windowReason, code: d.reason };
    if (entry?.decision === "truncated") {
      const reason = d.action === "truncated" ? `${entry.reason}; then ${windowReason}` : entry.reason;
      return { ...base, decision: "truncated" as const, strategy: entry.strategy, reason };
    }
    if (d.action === "truncated") return { ...base, decision: "truncated" as const, strategy: "window", reason: windowReason, code: d.reason };
    // A strategy that brought a message in on purpose (recall) says why; the window only kept it.
    if (entry?.decision === "kept") return { ...base, decision: "kept" as const, strategy: entry.strategy, reason: entry.reason };
    return { ...base, decision: "kept" as const, strategy: "window", reason: windowReason, code: d.reason };
  });
}
