import { formatRows, formatTable } from "../cli/format-table.js";
import type { ReplayResult, ReplaySummary, ReplayTurn } from "./run-replay.js";
import type { ReplaySpend } from "./replay-spend.js";

/**
 * Text and JSON renderings of a replay (src/cli/commands/replay.ts prints them). Plain text, no
 * colours: numbers with thousands separators, shares as percentages with one decimal, numeric
 * columns right-aligned.
 */

/** Up to this many turns, every row is printed by default; above, every DEFAULT_EVERY-th and the last. */
export const ALL_ROWS_UP_TO = 60;
export const DEFAULT_EVERY = 10;

export function formatInt(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : String(n);
}

/** A share (0–1) as a percentage with one decimal: 0.9731 → "97.3%". */
export function formatPercent(share: number): string {
  return Number.isFinite(share) ? `${(share * 100).toFixed(1)}%` : "-";
}

/** Milliseconds with two decimals and separators: 1234.567 → "1,234.57". */
export function formatMs(ms: number): string {
  return ms.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/** A duration for people: "840.12 ms", "12.35 s". */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${formatMs(ms)} ms` : `${(ms / 1000).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })} s`;
}

/**
 * The turns whose rows are printed: every `every`-th turn and the last; without `every`, all of
 * them up to ALL_ROWS_UP_TO turns, else every DEFAULT_EVERY-th and the last. `include` (the
 * explained turn) is always shown.
 */
export function selectRows(turns: readonly ReplayTurn[], every?: number, include?: number): ReplayTurn[] {
  const step = every ?? (turns.length <= ALL_ROWS_UP_TO ? 1 : DEFAULT_EVERY);
  const last = turns.length;
  return turns.filter((t) => t.turn % step === 0 || t.turn === last || t.turn === include);
}

const TURN_HEADERS = ["TURN", "HISTORY MSGS", "HISTORY TOKENS", "WINDOW MSGS", "WINDOW TOKENS", "KEPT", "REMOVED", "TRUNCATED", "PREFIX KEPT", "MS"];

/** One row per turn, numbers right-aligned. */
export function formatTurnTable(turns: readonly ReplayTurn[]): string {
  const rows = turns.map((t) => [
    String(t.turn),
    formatInt(t.historyMessages),
    formatInt(t.historyTokens),
    formatInt(t.windowMessages),
    formatInt(t.windowTokens),
    formatInt(t.kept),
    formatInt(t.removed),
    formatInt(t.truncated),
    formatPercent(t.prefixKept),
    formatMs(t.ms),
  ]);
  return alignedTable(TURN_HEADERS, rows, TURN_HEADERS.map(() => true));
}

export interface SummaryOptions {
  /** The transcript as the user named it (summary.transcript is the resolved path). */
  transcript?: string;
  /** Where the budget came from, shown after it: "--budget", "gpt-4o window − max output − margin". */
  budgetSource?: string;
}

export function formatSummary(summary: ReplaySummary, options: SummaryOptions = {}): string {
  const budget =
    summary.budget === "provider"
      ? "from the provider (the module did not report the number)"
      : `${formatInt(summary.budget)} tokens${options.budgetSource ? ` (${options.budgetSource})` : ""}`;
  const rows = [
    ["transcript", options.transcript ?? summary.transcript],
    ["messages", formatInt(summary.messages)],
    ["turns", `${formatInt(summary.turns)} (model calls: one before each assistant message)`],
    ["module", summary.module],
    ["model", summary.model],
    ["budget", budget],
    ["history tokens", `${formatInt(summary.totalHistoryTokens)} summed over turns (the whole history every time)`],
    ["window tokens", `${formatInt(summary.totalWindowTokens)} summed over turns, ${formatPercent(summary.savedShare)} saved`],
    ["max window", `${formatInt(summary.maxWindowTokens)} tokens`],
    ["mean prefix kept", `${formatPercent(summary.meanPrefixKept)} of the previous window (token-weighted)`],
    ["time per turn", `p50 ${formatMs(summary.p50Ms)} ms, p99 ${formatMs(summary.p99Ms)} ms`],
    ["total time", `${formatDuration(summary.totalMs)} in getMessagesForRequest`],
    ...(summary.spend ? spendRows(summary.spend) : []),
  ];
  return `Summary\n${formatRows(rows.map(([label, value]) => [`  ${label}`, value!]))}`;
}

/** The session's spend, three ways (replay-spend.ts): conversation, compaction, cache writes, and compaction's share. */
export function spendRows(spend: ReplaySpend): string[][] {
  const usd = (n: number | undefined) => (n === undefined ? "" : ` = $${n.toFixed(4)}`);
  const c = spend.conversation;
  const k = spend.compaction;
  const w = spend.cacheWrites;
  const share = spend.compactionShare === undefined ? `${formatPercent(spend.compactionTokenShare)} of tokens (no prices for this model)` : `${formatPercent(spend.compactionShare)} of cost, ${formatPercent(spend.compactionTokenShare)} of tokens`;
  return [
    ["spent: conversation", `${formatInt(c.inputTokens)} in${spend.cacheSimulated ? ` (${formatInt(c.cacheReadTokens)} from cache)` : " (no cache simulated: priced uncached)"} + ${formatInt(c.outputTokens)} out${usd(c.usd)}`],
    ["spent: compaction", `${formatInt(k.summarizerCalls)} summarizer call${k.summarizerCalls === 1 ? "" : "s"}, ${formatInt(k.providerCompactions)} provider compaction${k.providerCompactions === 1 ? "" : "s"}: ${formatInt(k.inputTokens)} in + ${formatInt(k.outputTokens)} out${usd(k.usd)}`],
    ["spent: cache writes", spend.cacheSimulated ? `${formatInt(w.tokens)} tokens${usd(w.usd)}` : "not simulated (--cache)"],
    ["spent: total", `${spend.totalUsd === undefined ? "-" : `$${spend.totalUsd.toFixed(4)}`}; compaction's share ${share}`],
  ];
}

/** One per-message entry of an explain report, as far as it could be read. */
export interface ExplainRow {
  index: string;
  id: string;
  role: string;
  decision: string;
  reason: string;
  tokens: string;
  strategy: string;
}

/**
 * The per-message decisions of an explain report. Read defensively: the report's shape belongs
 * to the module (built-ins: `{ report: { decisions: [...] } }`); accepted too are `{ decisions }`
 * and a bare array. Undefined when no list of decisions is found.
 */
export function explainRows(explain: unknown): ExplainRow[] | undefined {
  const list = findDecisions(explain);
  if (list === undefined) return undefined;
  return list.map((entry, position) => {
    const e = (typeof entry === "object" && entry !== null ? entry : { decision: entry }) as Record<string, unknown>;
    const message = (typeof e.message === "object" && e.message !== null ? e.message : {}) as Record<string, unknown>;
    const metadata = (typeof message.metadata === "object" && message.metadata !== null ? message.metadata : {}) as Record<string, unknown>;
    return {
      index: text(e.index ?? e.messageIndex ?? e.storedIndex ?? position),
      id: text(e.id ?? e.messageId ?? metadata.id),
      role: text(e.role ?? message.role),
      decision: text(e.decision ?? e.action ?? e.status),
      reason: shorten(text(e.reason ?? e.why), 100),
      tokens: tokensText(e.tokens ?? e.tokenCount),
      strategy: text(e.strategy ?? e.by ?? e.decidedBy),
    };
  });
}

export interface ExplainOptions {
  turn: ReplayTurn | undefined;
  turnNumber: number;
  module: string;
  supported: boolean | undefined;
}

/** `--explain <turn>`: a heading, the count of each decision, and the table of decisions. */
export function formatExplain(explain: unknown, options: ExplainOptions): string {
  const { turn, turnNumber, module } = options;
  const where = turn
    ? ` (before message ${turn.messageIndex + 1}: ${formatInt(turn.historyMessages)} stored messages, window of ${formatInt(turn.windowMessages)} messages, ${formatInt(turn.windowTokens)} tokens)`
    : "";
  const heading = `Explain turn ${turnNumber}${where}`;
  if (options.supported === false) {
    return `${heading}\n  module "${module}" offers no explain: it has no explainLastWindow(), so per-message decisions are not available.\n`;
  }
  const rows = explainRows(explain);
  if (rows === undefined) {
    const what = explain === undefined || explain === null ? "nothing" : `a report without per-message decisions (keys: ${Object.keys(explain as object).join(", ") || "none"})`;
    return `${heading}\n  module "${module}" returned ${what} from explainLastWindow() for this turn.\n`;
  }
  if (rows.length === 0) return `${heading}\n  the report lists no messages.\n`;

  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row.decision, (counts.get(row.decision) ?? 0) + 1);
  const tally = [...counts].map(([decision, n]) => `${decision} ${formatInt(n)}`).join(", ");
  const withStrategy = rows.some((r) => r.strategy !== "-");
  const headers = ["INDEX", "ID", "ROLE", "DECISION", ...(withStrategy ? ["STRATEGY"] : []), "TOKENS", "REASON"];
  const cells = rows.map((r) => [r.index, r.id, r.role, r.decision, ...(withStrategy ? [r.strategy] : []), r.tokens, r.reason]);
  const right = headers.map((h) => h === "INDEX" || h === "TOKENS");
  return `${heading}\n  ${tally}\n\n${alignedTable(headers, cells, right)}`;
}

export interface FormatReplayOptions extends SummaryOptions {
  every?: number;
  explainTurn?: number;
}

/** The whole human report: the turn table (selected rows), the summary, the explain table. */
export function formatReplay(result: ReplayResult, options: FormatReplayOptions = {}): string {
  const { summary, turns } = result;
  const parts: string[] = [];
  if (turns.length === 0) {
    parts.push("No turns: the transcript has no assistant message, so no window was ever requested.\n");
  } else {
    const shown = selectRows(turns, options.every, options.explainTurn);
    parts.push(formatTurnTable(shown));
    if (shown.length < turns.length) {
      const step = options.every ?? DEFAULT_EVERY;
      parts.push(`(${formatInt(shown.length)} of ${formatInt(turns.length)} turns shown: every ${ordinal(step)} and the last; --every 1 shows all. The summary covers all turns.)\n`);
    }
  }
  parts.push(formatSummary(summary, options));
  if (summary.cache) parts.push(formatCache(result, options.every));
  if (turns.some((t) => t.usage)) parts.push(formatDrift(turns, options.every));
  if (options.explainTurn !== undefined) {
    parts.push(
      formatExplain(result.explain, {
        turn: turns[options.explainTurn - 1],
        turnNumber: options.explainTurn,
        module: summary.module,
        supported: result.explainSupported,
      }),
    );
  }
  return parts.join("\n");
}

/** `--json`: one document `{ summary, turns, explain? }`; explain is null when the module offers none. */
export function formatReplayJson(result: ReplayResult, options: { explainTurn?: number } = {}): string {
  const document: Record<string, unknown> = { summary: result.summary, turns: result.turns };
  if (options.explainTurn !== undefined) document.explain = toPlainJson(result.explain) ?? null;
  return `${JSON.stringify(document, null, 2)}\n`;
}

const CACHE_HEADERS = ["TURN", "INPUT", "CACHED", "WRITTEN", "HIT", "COST $", "NO-CACHE $", "TAIL INPUT", "TAIL CACHED", "TAIL $"];

/** `--cache`: the simulated prompt cache per turn (selected rows) and its totals, against a naive tail window. */
export function formatCache(result: ReplayResult, every?: number): string {
  const cache = result.summary.cache!;
  const usd = (n: number | undefined) => (n === undefined ? "-" : n.toFixed(4));
  const rows = selectRows(result.turns, every)
    .filter((t) => t.cache)
    .map((t) => {
      const c = t.cache!;
      return [String(t.turn), formatInt(c.inputTokens), formatInt(c.cachedTokens), formatInt(c.writeTokens), formatPercent(c.inputTokens ? c.cachedTokens / c.inputTokens : 0), usd(c.costUsd), usd(c.uncachedCostUsd), formatInt(c.tailInputTokens), formatInt(c.tailCachedTokens), usd(c.tailCostUsd)];
    });
  const rule = cache.rule === "openai" ? `OpenAI automatic prefix cache (from ${formatInt(cache.minimumTokens)} tokens, 128-token steps)` : `Anthropic breakpoints as toAnthropic places them (minimum ${formatInt(cache.minimumTokens)} tokens)`;
  const prices = cache.prices
    ? `list prices per 1M tokens as of ${cache.prices.asOf} (${cache.prices.source}): input $${cache.prices.input}, cached $${cache.prices.cachedInput}, output $${cache.prices.output}${cache.prices.cacheWrite === undefined ? "" : `, cache write $${cache.prices.cacheWrite}`}`
    : "no list prices for this model in the registry: costs not shown";
  const summary = [
    ["cache rule", rule],
    ["input tokens", `${formatInt(cache.inputTokens)} summed over turns`],
    ["served from cache", `${formatInt(cache.cachedTokens)} (${formatPercent(cache.hitRate)})${cache.writeTokens ? `, ${formatInt(cache.writeTokens)} written` : ""}`],
    ["cost", cache.costUsd === undefined ? "-" : `$${cache.costUsd.toFixed(4)} (without a cache: $${cache.uncachedCostUsd!.toFixed(4)})`],
    ["naive tail window", `${formatInt(cache.tail.inputTokens)} input tokens, ${formatPercent(cache.tail.hitRate)} from cache${cache.tail.costUsd === undefined ? "" : `, $${cache.tail.costUsd.toFixed(4)}`}`],
    ["prices", prices],
  ];
  return `Prompt cache (simulated)\n${alignedTable(CACHE_HEADERS, rows, CACHE_HEADERS.map(() => true))}\n${formatRows(summary.map(([label, value]) => [`  ${label}`, value!]))}`;
}

const DRIFT_HEADERS = ["TURN", "COUNTED", "BILLED", "DRIFT", "RATIO", "FACTOR"];

/** Turns whose transcript carried the bill: counted vs billed input and the calibrated factor after each. */
export function formatDrift(turns: readonly ReplayTurn[], every?: number): string {
  const rows = selectRows(turns, every)
    .filter((t) => t.usage)
    .map((t) => {
      const u = t.usage!;
      return [String(t.turn), formatInt(u.counted), formatInt(u.billed), formatInt(u.billed - u.counted), u.ratio === undefined ? "-" : u.ratio.toFixed(3), `${u.factor.toFixed(2)}${u.accepted ? "" : " (bill rejected)"}`];
    });
  return `Counts vs bill (transcript metadata.usage)\n${alignedTable(DRIFT_HEADERS, rows, DRIFT_HEADERS.map(() => true))}\n`;
}

// --- helpers -----------------------------------------------------------------------------------

/** formatTable with some columns right-aligned (cells padded at the start to the column's width). */
function alignedTable(headers: readonly string[], rows: readonly (readonly string[])[], right: readonly boolean[]): string {
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? "").length)));
  const pad = (cells: readonly string[]) => cells.map((cell, c) => (right[c] ? cell.padStart(widths[c]!) : cell));
  return formatTable(pad(headers), rows.map(pad));
}

function findDecisions(explain: unknown): unknown[] | undefined {
  if (Array.isArray(explain)) return explain;
  if (typeof explain !== "object" || explain === null) return undefined;
  const e = explain as { decisions?: unknown; report?: { decisions?: unknown } };
  if (Array.isArray(e.decisions)) return e.decisions;
  if (typeof e.report === "object" && e.report !== null && Array.isArray(e.report.decisions)) return e.report.decisions;
  return undefined;
}

function text(value: unknown): string {
  if (value === undefined || value === null || value === "") return "-";
  if (typeof value === "string") return value.replace(/\s+/g, " ");
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  try {
    return JSON.stringify(value) ?? "-";
  } catch {
    return String(value);
  }
}

/** A count, or a change of count ({ before, after } for a truncated message): "1,204 → 310". */
function tokensText(value: unknown): string {
  if (typeof value === "number") return formatInt(value);
  if (typeof value === "object" && value !== null) {
    const v = value as Record<string, unknown>;
    const before = v.before ?? v.original ?? v.stored;
    const after = v.after ?? v.window ?? v.sent;
    if (typeof before === "number" && typeof after === "number") return `${formatInt(before)} → ${formatInt(after)}`;
  }
  return text(value);
}

function shorten(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

function ordinal(n: number): string {
  if (n === 1) return "turn";
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
}

/** A JSON-safe copy: Maps become objects, Sets arrays, bigints strings, cycles "[Circular]". */
function toPlainJson(value: unknown, ancestors: object[] = []): unknown {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "function" || typeof value === "symbol") return undefined;
  if (typeof value !== "object" || value === null) return value;
  if (ancestors.includes(value)) return "[Circular]";
  const next = [...ancestors, value];
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toPlainJson(v, next)]));
  if (value instanceof Set) return [...value].map((v) => toPlainJson(v, next));
  if (Array.isArray(value)) return value.map((v) => toPlainJson(v, next) ?? null);
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return (value as { toJSON(): unknown }).toJSON();
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const plain = toPlainJson(v, next);
    if (plain !== undefined) out[k] = plain;
  }
  return out;
}
