import type { SessionAnalysis } from "../inspector-data.js";

/** The series the session's charts draw, one value per turn (x = turn number). */
export interface SessionCharts {
  turns: number[];
  historyTokens: number[];
  windowTokens: number[];
  budget: number[];
  /** Percent (0-100) of the previous window's tokens this window starts with unchanged. */
  prefixKept: number[];
  /** Percent (0-100) of the input served from the prompt cache; null for a turn without usage. Absent when no turn has any. */
  cachedShare?: Array<number | null>;
  /** Where the cache figures come from: the bills in the transcript, or replay's simulation. */
  cacheSource?: "billed" | "simulated" | "billed and simulated";
}

export function sessionCharts(analysis: SessionAnalysis | undefined): SessionCharts {
  const turns = analysis?.turns ?? [];
  const charts: SessionCharts = {
    turns: turns.map((t) => t.turn),
    historyTokens: turns.map((t) => t.historyTokens),
    windowTokens: turns.map((t) => t.windowTokens),
    budget: turns.map((t) => t.budget),
    prefixKept: turns.map((t) => round1(t.prefixKept * 100)),
  };
  if (turns.some((t) => t.cache !== undefined)) {
    charts.cachedShare = turns.map((t) => (t.cache === undefined || t.cache.inputTokens === 0 ? null : round1((t.cache.cachedTokens / t.cache.inputTokens) * 100)));
    const billed = turns.some((t) => t.cache?.billed === true);
    const simulated = turns.some((t) => t.cache !== undefined && !t.cache.billed);
    charts.cacheSource = billed && simulated ? "billed and simulated" : billed ? "billed" : "simulated";
  }
  return charts;
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
