import type { AnalyzedTurn, DecisionRun, InspectorSession, RecordedWindow, WindowDecisionKind } from "../inspector-data.js";
import { byWords } from "./decision-words.js";
import { oneLine } from "./fold-text.js";

/** One stored message in one turn's window. */
export interface WindowRow {
  index: number;
  id?: string;
  role: string;
  /** "not stored" for a message the history never held (ephemeral), absent from the explanation. */
  decision: WindowDecisionKind | "not stored";
  /** The deciding strategy's internal name ("window", "pipeline", a strategy's name); "—" when unknown. */
  strategy: string;
  /** Who decided, in the user's words: a strategy's name, "over budget", "fits budget", "instruction" … (decision-words.ts). */
  by: string;
  reason: string;
  /** Tokens it costs in this window (kept, truncated, recalled, summarized); undefined when dropped or unknown. */
  tokens?: number;
  preview: string;
}

/** Consecutive rows left out of the window for one reason, shown as one line the user can unfold. */
export interface DroppedFold {
  from: number;
  /** Exclusive. */
  to: number;
  decision: "dropped" | "not stored";
  by: string;
  reason: string;
  rows: WindowRow[];
}

export type TokenSegmentKey = "instructions" | "history" | "tools" | "free" | "over";

export interface TokenSegment {
  key: TokenSegmentKey;
  label: string;
  tokens: number;
  /** Share (0-1) of the bar: of the budget, or of the window when it is over budget. */
  share: number;
}

/** The facts of a turn's window, recorded (what was sent) or simulated (a replay). */
export type WindowFacts = Pick<AnalyzedTurn, "turn" | "messageIndex" | "historyMessages" | "historyTokens" | "windowMessages" | "windowTokens" | "budget" | "instructionTokens" | "historyKeptTokens" | "toolTokens" | "decisions" | "truncatedTokens">;

export type WindowOrigin = "sent" | "simulation";

export interface TurnWindowView {
  /** "sent": the context manager's record of the request; "simulation": a replay (the analysis). */
  origin: WindowOrigin;
  turn: WindowFacts;
  /** The record, when origin is "sent" (model, tool definitions, time). */
  recorded?: RecordedWindow;
  /** The simulation's turn, when origin is "simulation" (prefix kept, cache). */
  simulated?: AnalyzedTurn;
  explained: boolean;
  /** Every stored message before the call, in stored order. */
  rows: WindowRow[];
  /** The messages in the window (kept, truncated, summarized, recalled), in stored order: listed first. */
  inWindow: WindowRow[];
  /** The rest, as runs folded per reason: listed after the window's messages. */
  folds: DroppedFold[];
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
 * A turn's window, message by message — from what was sent (`origin: "sent"`, the session's
 * records) or from the simulation (the analysis): each stored message before the call with its
 * decision, who decided in the user's words and why; the window's messages first, the messages
 * left out folded into runs (turn 700 of a long session: its 37 kept messages, then one line for
 * 1,824 dropped over budget); and the token bar (instructions, history kept, tool definitions,
 * free budget — "over budget" instead of free when the window is larger than the budget).
 * Undefined when the session has no such turn of that origin.
 */
export function turnWindow(session: Pick<InspectorSession, "messages" | "analysis" | "recorded">, turnNumber: number, origin: WindowOrigin = "simulation"): TurnWindowView | undefined {
  const recorded = origin === "sent" ? session.recorded?.find((t) => t.turn === turnNumber) : undefined;
  const simulated = origin === "simulation" ? session.analysis?.turns.find((t) => t.turn === turnNumber) : undefined;
  const turn: WindowFacts | undefined = recorded ?? simulated;
  if (turn === undefined) return undefined;
  const counts: Record<WindowDecisionKind, number> = { kept: 0, truncated: 0, summarized: 0, recalled: 0, dropped: 0 };
  const rows: WindowRow[] = [];
  const runs = turn.decisions ?? [];
  let run = 0;
  for (const message of session.messages.slice(0, turn.messageIndex)) {
    while (run < runs.length && runs[run]!.to <= message.index) run++;
    const found: DecisionRun | undefined = runs[run] !== undefined && runs[run]!.from <= message.index ? runs[run] : undefined;
    const row: WindowRow = {
      index: message.index,
      role: message.role,
      decision: found?.decision ?? "not stored",
      strategy: found?.strategy ?? "—",
      by: found === undefined ? "—" : byWords(found.strategy, found.code, found.decision),
      reason: found?.reason ?? (turn.decisions === undefined ? "the context module offers no explain" : "not in the stored history (ephemeral messages are never stored)"),
      preview: oneLine(message.text || message.toolCalls.map((c) => `${c.name}(${c.arguments})`).join(" ")),
    };
    if (message.id !== undefined) row.id = message.id;
    const tokens = turn.truncatedTokens?.[message.index] ?? message.tokens;
    if (found !== undefined && found.decision !== "dropped" && tokens !== undefined) row.tokens = tokens;
    if (found !== undefined) counts[found.decision]++;
    rows.push(row);
  }
  const explained = turn.decisions !== undefined;
  const syntheticMessages = explained ? Math.max(0, turn.windowMessages - counts.kept - counts.truncated - counts.recalled) : 0;
  const inWindow = rows.filter((r) => r.decision !== "dropped" && r.decision !== "not stored");
  const view: TurnWindowView = { origin, turn, explained, rows, inWindow, folds: foldsOf(rows), counts, syntheticMessages, bar: tokenBar(turn) };
  if (recorded !== undefined) view.recorded = recorded;
  if (simulated !== undefined) view.simulated = simulated;
  return view;
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

// ---- private helpers ----

/** Consecutive left-out rows with one decision, by and reason (rows unexplained by the module fold as well). */
function foldsOf(rows: readonly WindowRow[]): DroppedFold[] {
  const folds: DroppedFold[] = [];
  for (const row of rows) {
    if (row.decision !== "dropped" && row.decision !== "not stored") continue;
    const last = folds.at(-1);
    if (last !== undefined && last.to === row.index && last.decision === row.decision && last.by === row.by && last.reason === row.reason) {
      last.to = row.index + 1;
      last.rows.push(row);
    } else folds.push({ from: row.index, to: row.index + 1, decision: row.decision, by: row.by, reason: row.reason, rows: [row] });
  }
  return folds;
}
