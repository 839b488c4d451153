/**
 * Window records: what a context manager actually sent, one record per getMessagesForRequest —
 * the budget, the model, the tool definitions (each with its tokens), the token split, and why each
 * stored message was or was not in the window as run-length decisions (a few runs per window, not a
 * row per message). The built-in managers keep them in memory (`windowRecords()`), and
 * context-persistent keeps them beside the session as its attachments `windows-0`, `windows-1` …
 * (`WINDOW_SEGMENT_SIZE` records each) so a reader — the Inspector — shows what was sent, for a
 * live or a stored session, and labels any replay a simulation.
 *
 * A segment's text is JSON: `{ "v": 1, "toolSets": ToolRecord[][], "windows": [...] }`, each
 * window naming its tool set by position (a session sends the same tools call after call).
 */
import { createError } from "./errors.js";

export const WINDOW_RECORD_VERSION = 1;
/** Records per attachment: a write rewrites one segment, so this bounds what a turn writes. */
export const WINDOW_SEGMENT_SIZE = 64;

/** The attachment name of segment `n` (0-based). */
export function windowSegmentName(n: number): string {
  return `windows-${n}`;
}

export type WindowRunDecision = "kept" | "truncated" | "summarized" | "dropped";

/**
 * Stored messages [from, to) with one decision: `by` = the strategy that decided (a pipeline
 * strategy's name, "window" for the window assembler, "pipeline" when nobody said), `why` = the
 * assembler's reason code (window-report.ts: `in-window`, `before-cut` …) or the strategy's words.
 */
export type WindowRun = [from: number, to: number, decision: WindowRunDecision, by: string, why: string];

export interface ToolRecord {
  name: string;
  /** What this definition costs alone (countTools of it). */
  tokens: number;
}

export interface WindowRecord {
  /** ISO-8601 time of the request. */
  at: string;
  /** Stored messages when the window was built: the runs cover [0, history). */
  history: number;
  /** metadata.id of the last stored message then (lines a record up with a session read later). */
  lastId?: string;
  model: string;
  encoding: string;
  budget: number;
  windowMessages: number;
  /** Request tokens of the window: messages, reply priming and tool definitions. */
  windowTokens: number;
  /** Request tokens of the whole history sent as is (estimated for its older part when not exact). */
  historyTokens: number;
  instructionTokens: number;
  toolTokens: number;
  tools: ToolRecord[];
  /** Pipeline strategies that changed something, then "window". */
  strategies: string[];
  runs: WindowRun[];
}

/** One segment as text (the attachment's content). */
export function encodeWindowSegment(records: readonly WindowRecord[]): string {
  const toolSets: ToolRecord[][] = [];
  const keys = new Map<string, number>();
  const windows = records.map(({ tools, ...rest }) => {
    const key = JSON.stringify(tools);
    let at = keys.get(key);
    if (at === undefined) {
      at = toolSets.push(tools) - 1;
      keys.set(key, at);
    }
    return { ...rest, tools: at };
  });
  return JSON.stringify({ v: WINDOW_RECORD_VERSION, toolSets, windows });
}

/**
 * The records of a segment's text. Anything else — not JSON, another version, a record without
 * its numbers — is WINDOW_RECORD_INVALID naming the path and what was expected: the text comes
 * from a store another program may have written.
 */
export function decodeWindowSegment(text: string, where = "window record segment"): WindowRecord[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw invalid(where, "", "JSON text", text.slice(0, 40), error);
  }
  const root = doc as { v?: unknown; toolSets?: unknown; windows?: unknown } | null;
  if (typeof root !== "object" || root === null || root.v !== WINDOW_RECORD_VERSION) throw invalid(where, "v", `version ${WINDOW_RECORD_VERSION}`, root?.v);
  if (!Array.isArray(root.toolSets)) throw invalid(where, "toolSets", "an array of tool lists", root.toolSets);
  const toolSets = root.toolSets.map((set: unknown, i) => toolList(set, where, `toolSets[${i}]`));
  if (!Array.isArray(root.windows)) throw invalid(where, "windows", "an array of window records", root.windows);
  return root.windows.map((w: unknown, i) => windowRecord(w, toolSets, where, `windows[${i}]`));
}

// ---- private helpers ----

const NUMBERS = ["history", "budget", "windowMessages", "windowTokens", "historyTokens", "instructionTokens", "toolTokens"] as const;
const DECISIONS = new Set<string>(["kept", "truncated", "summarized", "dropped"]);

function windowRecord(value: unknown, toolSets: ToolRecord[][], where: string, path: string): WindowRecord {
  const w = value as Record<string, unknown> | null;
  if (typeof w !== "object" || w === null) throw invalid(where, path, "a window record", value);
  for (const key of NUMBERS) if (!isCount(w[key])) throw invalid(where, `${path}.${key}`, "a non-negative integer", w[key]);
  for (const key of ["at", "model", "encoding"] as const) if (typeof w[key] !== "string") throw invalid(where, `${path}.${key}`, "a string", w[key]);
  if (w.lastId !== undefined && typeof w.lastId !== "string") throw invalid(where, `${path}.lastId`, "a string", w.lastId);
  const tools = typeof w.tools === "number" ? toolSets[w.tools] : undefined;
  if (tools === undefined) throw invalid(where, `${path}.tools`, `a position in toolSets (0-${toolSets.length - 1})`, w.tools);
  if (!Array.isArray(w.strategies) || !w.strategies.every((s) => typeof s === "string")) throw invalid(where, `${path}.strategies`, "an array of strategy names", w.strategies);
  if (!Array.isArray(w.runs)) throw invalid(where, `${path}.runs`, "an array of runs", w.runs);
  const runs = w.runs.map((run: unknown, i) => windowRun(run, w.history as number, where, `${path}.runs[${i}]`));
  const record: WindowRecord = {
    at: w.at as string,
    history: w.history as number,
    model: w.model as string,
    encoding: w.encoding as string,
    budget: w.budget as number,
    windowMessages: w.windowMessages as number,
    windowTokens: w.windowTokens as number,
    historyTokens: w.historyTokens as number,
    instructionTokens: w.instructionTokens as number,
    toolTokens: w.toolTokens as number,
    tools,
    strategies: w.strategies as string[],
    runs,
  };
  if (typeof w.lastId === "string") record.lastId = w.lastId;
  return record;
}

function windowRun(value: unknown, history: number, where: string, path: string): WindowRun {
  const expected = `[from, to, decision, by, why] with 0 <= from < to <= ${history}`;
  if (!Array.isArray(value) || value.length !== 5) throw invalid(where, path, expected, value);
  const [from, to, decision, by, why] = value as unknown[];
  if (!isCount(from) || !isCount(to) || from >= to || to > history) throw invalid(where, path, expected, value);
  if (typeof decision !== "string" || !DECISIONS.has(decision)) throw invalid(where, `${path}[2]`, "kept, truncated, summarized or dropped", decision);
  if (typeof by !== "string" || typeof why !== "string") throw invalid(where, path, expected, value);
  return [from, to, decision as WindowRunDecision, by, why];
}

function toolList(value: unknown, where: string, path: string): ToolRecord[] {
  if (!Array.isArray(value)) throw invalid(where, path, "an array of { name, tokens }", value);
  return value.map((t: unknown, i) => {
    const tool = t as { name?: unknown; tokens?: unknown } | null;
    if (typeof tool?.name !== "string" || !isCount(tool.tokens)) throw invalid(where, `${path}[${i}]`, "{ name: string, tokens: non-negative integer }", t);
    return { name: tool.name, tokens: tool.tokens };
  });
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function invalid(where: string, path: string, expected: string, given: unknown, cause?: unknown) {
  return createError("WINDOW_RECORD_INVALID", `${where}${path === "" ? "" : ` at ${path}`}`, { path, expected, given, ...(cause === undefined ? {} : { cause }) });
}
