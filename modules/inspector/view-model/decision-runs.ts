import type { DecisionRun, WindowDecisionKind } from "../inspector-data.js";

/** One stored message as a context module's explain reports it (MessageExplanation of @amplifier-ts/context-manager). */
export interface ExplainedMessage {
  readonly id?: string | undefined;
  readonly decision: string;
  readonly strategy: string;
  readonly reason: string;
  /** The window assembler's reason code, when it decided (MessageExplanation.code). */
  readonly code?: string | undefined;
}

const DECISIONS = new Set(["kept", "truncated", "summarized", "dropped"]);

/**
 * A turn's explanation as runs over the session's message positions: `positionOf(id)` maps a stored
 * message to its position in the session (the stored history skips ephemeral messages, the session
 * view does not). Explain's "kept" by a strategy other than the window assembler (a recall
 * strategy brought the message in on purpose) is "recalled". Entries without a known position are
 * left out; an unknown decision is "dropped" with its own reason kept.
 */
export function decisionRuns(explanation: readonly ExplainedMessage[], positionOf: (id: string) => number | undefined): DecisionRun[] {
  const placed: Array<{ at: number; decision: WindowDecisionKind; strategy: string; reason: string; code: string | undefined }> = [];
  for (const entry of explanation) {
    const at = entry.id === undefined ? undefined : positionOf(entry.id);
    if (at === undefined) continue;
    const known = DECISIONS.has(entry.decision) ? (entry.decision as WindowDecisionKind) : "dropped";
    const decision: WindowDecisionKind = known === "kept" && entry.strategy !== "window" && entry.strategy !== "pipeline" ? "recalled" : known;
    placed.push({ at, decision, strategy: entry.strategy, reason: entry.reason, code: entry.code });
  }
  placed.sort((a, b) => a.at - b.at);
  const runs: DecisionRun[] = [];
  for (const p of placed) {
    const last = runs.at(-1);
    if (last !== undefined && last.to === p.at && last.decision === p.decision && last.strategy === p.strategy && last.reason === p.reason) last.to = p.at + 1;
    else runs.push({ from: p.at, to: p.at + 1, decision: p.decision, strategy: p.strategy, reason: p.reason, ...(p.code === undefined ? {} : { code: p.code }) });
  }
  return runs;
}
