import type { RecordedWindow, SessionAnalysis } from "../inspector-data.js";

/** The series the session's charts draw, one value per turn (x = turn number). */
export interface SessionCharts {
  turns: number[];
  historyTokens: number[];
  windowTokens: number[];
  budget: number[];
  /** Where the window and budget series come from: the context manager's records ("sent") or the replay ("simulation"). */
  windowSource: "sent" | "simulation";
  /** Percent (0-100) of the previous window's tokens this window starts with unchanged. */
  prefixKept: Array<number | null>;
  /** Percent (0-100) of the input served from the prompt cache; null for a turn without usage. Absent when no turn has any. */
  cachedShare?: Array<number | null>;
  /** Where the cache figures come from: the bills in the transcript, or replay's simulation. */
  cacheSource?: "billed" | "simulated" | "billed and simulated";
}

/**
 * The charts' series. The token chart draws what was sent when the session has records (one point
 * per recorded turn), else the simulation's windows; prefix kept and cached share come from the
 * simulation (they compare consecutive windows of one replay).
 */
export function sessionCharts(analysis: SessionAnalysis | undefined, recorded?: readonly RecordedWindow[]): SessionCharts {
  const turns = analysis?.turns ?? [];
  const windows = recorded !== undefined && recorded.length > 0 ? recorded : turns;
  const charts: SessionCharts = {
    turns: windows.map((t) => t.turn),
    historyTokens: windows.map((t) => t.historyTokens),
    windowTokens: windows.map((t) => t.windowTokens),
    budget: windows.map((t) => t.budget),
    windowSource: windows === turns ? "simulation" : "sent",
    prefixKept: alignTo(windows, turns, (t) => round1(t.prefixKept * 100)),
  };
  if (turns.some((t) => t.cache !== undefined)) {
    charts.cachedShare = alignTo(windows, turns, (t) => (t.cache === undefined || t.cache.inputTokens === 0 ? null : round1((t.cache.cachedTokens / t.cache.inputTokens) * 100)));
    const billed = turns.some((t) => t.cache?.billed === true);
    const simulated = turns.some((t) => t.cache !== undefined && !t.cache.billed);
    charts.cacheSource = billed && simulated ? "billed and simulated" : billed ? "billed" : "simulated";
  }
  return charts;
}

/** The simulation's value for each charted turn (null where the simulation has no such turn). */
function alignTo<T>(windows: ReadonlyArray<{ turn: number }>, turns: SessionAnalysis["turns"], value: (t: SessionAnalysis["turns"][number]) => T): Array<T | null> {
  if (windows === turns) return turns.map(value);
  const byTurn = new Map(turns.map((t) => [t.turn, t]));
  return windows.map((w) => {
    const t = byTurn.get(w.turn);
    return t === undefined ? null : value(t);
  });
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
