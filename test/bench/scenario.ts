/** What a benchmark scenario is and what it hands to the report. */

export type Status = "PASS" | "MISS" | "INFO" | "ERROR";

/** One line of the summary: a measured figure against its target. */
export interface Check {
  label: string;
  figure: string;
  target: string;
  status: Status;
  /** What this figure was measured on, when it differs from the scenario's `data` (see DataSource). */
  data?: string;
}

export interface Table {
  title?: string;
  columns: string[];
  rows: string[][];
}

export interface ScenarioResult {
  checks: Check[];
  tables: Table[];
  notes: string[];
  /** Markdown blocks rendered by another tool (the recall eval), placed after the tables. */
  markdown?: string[];
  /** Raw figures, written to .cache/bench/results.json for machines. */
  data?: unknown;
}

export interface BenchOptions {
  /** Smaller sizes and fewer turns: a smoke run. */
  quick: boolean;
  /** History sizes of the agent-loop and LangChain scenarios. */
  sizes: number[];
  /** Measured turns per size (after warm-up). */
  turns: number;
  warmup: number;
  /** Messages in the resumed session and in the memory scenario. */
  bigCount: number;
  /** Token budget of every window request. */
  budget: number;
  /** Seconds a single LangChain trimMessages call may take before it is aborted. */
  langchainDeadlineS: number;
  /** Seconds of LangChain turns per size, after which fewer than `turns` are measured. */
  langchainBudgetS: number;
}

export interface BenchContext {
  options: BenchOptions;
  /** The bundled entry (to run child processes with). */
  entry: string;
  /** Scratch folder for session files (removed at the end). */
  tmpRoot: string;
  /** Shared between scenarios of one run (e.g. our per-turn figures for the LangChain ratio). */
  memo: Map<string, unknown>;
  log(message: string): void;
}

export interface Scenario {
  id: string;
  title: string;
  /** What is measured and how (markdown, one paragraph). */
  method: string;
  /**
   * What the figures are measured on: `short` for the tables, `detail` for the scenario's run table.
   * A quality figure means something only on data we did not write or tune on; the report says
   * which kind each scenario's data is, so a reader can tell a generator's figure from an outside one.
   */
  data: DataSource;
  run(ctx: BenchContext): Promise<ScenarioResult>;
}

export interface DataSource {
  short: string;
  detail: string;
}

/** Our seeded agent-loop history (history-generator.ts): the data of most scenarios. */
export const GENERATED_HISTORY: DataSource = {
  short: "ours: seeded generator",
  detail: "ours — a seeded tool-using agent history from test/bench/history-generator.ts (we wrote it; no outside data)",
};

/** examples/sample-session.jsonl: written by our own deterministic generator, not recorded from a user. */
export const SAMPLE_SESSION: DataSource = {
  short: "ours: sample session (generated)",
  detail: "ours — examples/sample-session.jsonl, written by our deterministic generator examples/sample-session/generate.ts (592 messages, a crash mid-tool); not outside data",
};

export function check(label: string, figure: string, target: string, pass: boolean | undefined): Check {
  return { label, figure, target, status: pass === undefined ? "INFO" : pass ? "PASS" : "MISS" };
}
