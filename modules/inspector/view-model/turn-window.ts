import type { AnalyzedTurn, InspectorSession, WindowDecisionKind } from "../inspector-data.js";
import { oneLine } from "./fold-text.js";

/** One stored message in one turn's window. */
export interface WindowRow {
  index: number;
  id?: string;
  role: string;
  /** "not stored" for a message the history never held (ephemeral), absent from the explanation. */
  decision: WindowDecisionKind | "not stored";
  strategy: string;
  reason: string;
  /** Tokens it costs in this window (kept, truncated, recalled, summarized); undefined when dropped or unknown. */
  tokens?: number;
  preview: string;
}

export type TokenSegmentKey = "instructions" | "history" | "tools" | "free" | "over";

export interface TokenSegment {
  key: TokenSegmentKey;
  label: string;
  tokens: number;
  /** Share (0-1) of the bar: of the budget, or of the window when it is over budget. */
  share: number;
}

export interface TurnWindowView {
  turn: AnalyzedTurn;
  explained: boolean;
  rows: WindowRow[];
  counts: Record<WindowDecisionKind, number>;
  /** Window messages no stored message is (a summary, a placeholder, a synthetic tool result): counted in "history kept". */
  syntheticMessages: number;
  bar: TokenSegment[];
}

const SEGMENT_LABELS: Record<TokenSegmentKey, string> = {
  instructions: "instructions",
  history: "history kept",
  tools: "tool definitions",
  free: "free budget",
  over: "over budget",
};

/**
 * A turn's window, message by message: each stored message before the call with its decision,
 * the strategy that made it and why (from the analysis' decision runs), and the token bar
 * (instructions, history kept, tool definitions, free budget — "over budget" instead of free when
 * the window is larger than the budget). Undefined when the session has no such turn.
 */
export function turnWindow(session: Pick<InspectorSession, "messages" | "analysis">, turnNumber: number): TurnWindowView | undefined {
  const turn = session.analysis?.turns.find((t) => t.turn === turnNumber);
  if (turn === undefined) return undefined;
  const counts: Record<WindowDecisionKind, number> = { kept: 0, truncated: 0, summarized: 0, recalled: 0, dropped: 0 };
  const rows: WindowRow[] = [];
  const runs = turn.decisions ?? [];
  let run = 0;
  for (const message of session.messages.slice(0, turn.messageIndex)) {
    while (run < runs.length && runs[run]!.to <= message.index) run++;
    const found = runs[run] !== undefined && runs[run]!.from <= message.index ? runs[run] : undefined;
    const row: WindowRow = {
      index: message.index,
      role: message.role,
      decision: found?.decision ?? "not stored",
      strategy: found?.strategy ?? "—",
      reason: found?.reason ?? (turn.decisions === undefined ? "the context module offers no explain" : "not in the stored history (ephemeral messages are never stored)"),
      preview: oneLine(message.text || message.toolCalls.map((c) => `${c.name}(${c.arguments})`).join(" ")),
    };
    if (message.id !== undefined) row.id = message.id;
    const tokens = turn.truncatedTokens?.[message.index] ?? message.tokens;
    if (found !== undefined && found.decision !== "dropped" && tokens !== undefined) row.tokens = tokens;
    if (found !== undefined) counts[found.decision]++;
    rows.push(row);
  }
  const syntheticMessages = turn.decisions === undefined ? 0 : Math.max(0, turn.windowMessages - counts.kept - counts.truncated - counts.recalled);
  return { turn, explained: turn.decisions !== undefined, rows, counts, syntheticMessages, bar: tokenBar(turn) };
}

/** The token bar of a turn (see turnWindow). */
export function tokenBar(turn: Pick<AnalyzedTurn, "budget" | "windowTokens" | "instructionTokens" | "historyKeptTokens" | "toolTokens">): TokenSegment[] {
  const over = Math.max(0, turn.windowTokens - turn.budget);
  const whole = Math.max(turn.budget, turn.windowTokens, 1);
  const parts: Array<[TokenSegmentKey, number]> = [
    ["instructions", turn.instructionTokens],
    ["history", turn.historyKeptTokens],
    ["tools", turn.toolTokens],
    over > 0 ? ["over", over] : ["free", Math.max(0, turn.budget - turn.windowTokens)],
  ];
  return parts.map(([key, tokens]) => ({ key, label: SEGMENT_LABELS[key], tokens, share: tokens / whole }));
}
