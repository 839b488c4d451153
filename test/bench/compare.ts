/**
 * Side-by-side comparison of two commits' bench figures (pure: parsing, the noise rule, rendering).
 * Each check of a scenario is measured R times on each side, the sides alternating, so load that
 * comes and goes falls on both. A difference is "beyond noise" only when the two sides' ranges over
 * the repeats do not overlap: every HEAD repeat worse than every baseline repeat (or better).
 */
import type { Check, Table } from "./scenario.js";

export type Direction = "lower" | "higher" | undefined;

export interface Figure {
  value: number;
  /** Normalised unit: times in ms, rates as written ("msg/s", "/s"), "%", "×", "" for counts. */
  unit: string;
}

const UNIT_SCALE: Record<string, { unit: string; scale: number }> = {
  s: { unit: "ms", scale: 1000 },
  ms: { unit: "ms", scale: 1 },
  "µs": { unit: "ms", scale: 0.001 },
  us: { unit: "ms", scale: 0.001 },
};

/** The first number of a check's figure and its unit ("1.60 s" → 1600 ms); undefined when it has none. */
export function parseFigure(figure: string): Figure | undefined {
  const m = /^[≈~>< ]*(-?\d[\d,]*(?:\.\d+)?)\s*(msg\/s|\/s|µs|us|ms|s|%|×|MB|GB|KB|B)?(?![\w])/.exec(figure.trim());
  if (!m) return undefined;
  const value = Number(m[1]!.replace(/,/g, ""));
  if (!Number.isFinite(value)) return undefined;
  const unit = m[2] ?? "";
  const scaled = UNIT_SCALE[unit];
  return scaled ? { value: value * scaled.scale, unit: scaled.unit } : { value, unit };
}

/** Which way is better for a check: from its target ("≤ 1 ms" → lower), else from the unit (times lower, rates higher). */
export function direction(check: Pick<Check, "target">, figure: Figure): Direction {
  const target = check.target.trim();
  if (/^(≤|<)/.test(target) || target === "0") return "lower";
  if (/^(≥|>)/.test(target)) return "higher";
  if (figure.unit === "ms") return "lower";
  if (figure.unit.endsWith("/s")) return "higher";
  return undefined;
}

export interface Sample {
  /** One value per repeat (NaN where that repeat's figure was missing). */
  values: number[];
}

export type Verdict = "worse beyond noise" | "better beyond noise" | "within noise" | "no direction" | "one repeat: no noise estimate" | "missing";

export interface Comparison {
  scenario: string;
  label: string;
  target: string;
  unit: string;
  baseline: number[];
  head: number[];
  /** median(head) / median(baseline). */
  ratio: number;
  /** (max − min) / median over the repeats, the larger of the two sides. */
  noise: number;
  verdict: Verdict;
}

export function median(values: readonly number[]): number {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (!v.length) return Number.NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

export function spread(values: readonly number[]): number {
  const v = values.filter(Number.isFinite);
  if (v.length < 2) return Number.NaN;
  const m = median(v);
  const range = Math.max(...v) - Math.min(...v);
  return m === 0 ? (range === 0 ? 0 : Number.POSITIVE_INFINITY) : range / Math.abs(m);
}

/** The rule that decides "beyond noise": the two sides' ranges over the repeats do not overlap. */
export function verdict(baseline: readonly number[], head: readonly number[], dir: Direction): Verdict {
  const b = baseline.filter(Number.isFinite);
  const h = head.filter(Number.isFinite);
  if (!b.length || !h.length) return "missing";
  if (b.length < 2 || h.length < 2) return "one repeat: no noise estimate";
  if (dir === undefined) return "no direction";
  const [bMin, bMax, hMin, hMax] = [Math.min(...b), Math.max(...b), Math.min(...h), Math.max(...h)];
  const headAbove = hMin > bMax;
  const headBelow = hMax < bMin;
  if (!headAbove && !headBelow) return "within noise";
  const worse = dir === "lower" ? headAbove : headBelow;
  return worse ? "worse beyond noise" : "better beyond noise";
}

/**
 * A check's label without the measured values some labels carry in parentheses ("(… disk floor
 * 0.343 ms)", "worst size (N=1,000)"), so repeats match; "(median of 5)" or "t(10,000)" stay.
 */
export function labelKey(label: string): string {
  return label.replace(/\s*\([^()]*\d(?:\.\d+)?\s*(?:ms|µs|s|MB|GB|KB|%)(?![\w])[^()]*\)/g, "").replace(/worst size \(N=[\d,]+\)/, "worst size");
}

/** Checks of one scenario, one list per repeat and side, matched by label (labelKey). */
export function compareScenario(scenario: string, baseline: readonly (readonly Check[])[], head: readonly (readonly Check[])[]): Comparison[] {
  const labels: string[] = [];
  for (const run of [...head, ...baseline]) for (const c of run) if (!labels.includes(labelKey(c.label))) labels.push(labelKey(c.label));
  const out: Comparison[] = [];
  for (const label of labels) {
    const pick = (runs: readonly (readonly Check[])[]) => runs.map((run) => run.find((c) => labelKey(c.label) === label));
    const bChecks = pick(baseline);
    const hChecks = pick(head);
    const any = [...hChecks, ...bChecks].find((c) => c !== undefined)!;
    const parsed = [...hChecks, ...bChecks].map((c) => (c ? parseFigure(c.figure) : undefined));
    const first = parsed.find((f) => f !== undefined);
    if (!first) continue;
    const values = (checks: (Check | undefined)[]) => checks.map((c) => {
      const f = c ? parseFigure(c.figure) : undefined;
      return f && f.unit === first.unit ? f.value : Number.NaN;
    });
    const b = values(bChecks);
    const h = values(hChecks);
    out.push({
      scenario,
      label,
      target: any.target,
      unit: first.unit,
      baseline: b,
      head: h,
      ratio: median(h) / median(b),
      noise: Math.max(spread(b), spread(h)),
      verdict: verdict(b, h, direction(any, first)),
    });
  }
  return out;
}

export function comparisonTable(rows: readonly Comparison[], names: { baseline: string; head: string }): Table {
  return {
    columns: ["Measure", "Target", `${names.baseline}: median (min–max)`, `${names.head}: median (min–max)`, "HEAD / baseline", "noise: (max − min) / median, noisier side", "verdict"],
    rows: rows.map((r) => [r.label, r.target, range(r.baseline, r.unit), range(r.head, r.unit), ratioText(r.ratio), Number.isFinite(r.noise) ? `${(100 * r.noise).toFixed(0)} %` : "—", verdictCell(r.verdict)]),
  };
}

function verdictCell(v: Verdict): string {
  if (v === "worse beyond noise") return "❌ worse beyond noise";
  if (v === "better beyond noise") return "✅ better beyond noise";
  return v;
}

function ratioText(r: number): string {
  return Number.isFinite(r) ? `${r.toFixed(2)}×` : "—";
}

export function formatValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return "—";
  if (unit === "ms") return value >= 1000 ? `${(value / 1000).toPrecision(3)} s` : `${value.toPrecision(3)} ms`;
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  const text = value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: unit === "%" || unit === "×" ? Math.min(1, digits) : 0 });
  return unit === "" ? text : unit === "%" ? `${text} %` : unit === "×" ? `${text}×` : `${text} ${unit}`;
}

function range(values: readonly number[], unit: string): string {
  const v = values.filter(Number.isFinite);
  if (!v.length) return "—";
  const m = formatValue(median(v), unit);
  return v.length < 2 ? m : `${m} (${formatValue(Math.min(...v), unit)}–${formatValue(Math.max(...v), unit)})`;
}
