import type { BilledUsage } from "@amplifier-ts/contracts";

/**
 * The usage figures of one answer as the API wrote them, not yet trusted. A provider module names
 * the figures by the API's own paths (`prompt_tokens`, `input_tokens_details.cached_tokens`) and
 * says how checked figures make a BilledUsage; runProviderCall checks them (checkUsage) before
 * `bill` ever sees them, so no arithmetic runs on a string or an absurd number (Anthropic's
 * `input_tokens + cache_read + cache_write` on "10" made "1000").
 */
export interface UsageReport {
  /** Each figure by its path in the API's usage object, as given (or a figure derived from it, by its name). */
  figures: Record<string, unknown>;
  /** Figures the API may leave out or send as null: then 0. */
  optional: readonly string[];
  bill(figures: Record<string, number>): BilledUsage;
}

/** One figure that did not pass: the answer stands, its usage is dropped (`provider:usage_invalid`). */
export interface UsageProblem {
  /** `usage.prompt_tokens`, `usage` when the answer had none, `inputTokens` when a sum overflowed. */
  field: string;
  given: unknown;
  expected: string;
}

const EXPECTED = "a non-negative safe integer";

/**
 * The report of an API's `usage` object (undefined when the answer carried none). `bill` gets
 * every figure of `figures` as a checked number (an absent optional one as 0).
 */
export function usageReport<K extends string>(
  usage: unknown,
  spec: { figures: readonly K[]; optional?: readonly K[]; bill: (figures: Record<K, number>) => BilledUsage; derived?: Readonly<Record<string, unknown>> },
): UsageReport | undefined {
  if (usage === undefined || usage === null) return undefined;
  const figures: Record<string, unknown> = {};
  for (const path of spec.figures) figures[path] = valueAt(usage, path);
  // Figures the module computed from the usage (sums over Anthropic's usage.iterations): checked like the others.
  for (const [name, value] of Object.entries(spec.derived ?? {})) figures[name] = value;
  return { figures, optional: spec.optional ?? [], bill: spec.bill as (figures: Record<string, number>) => BilledUsage };
}

/**
 * The BilledUsage of a report when every figure is a non-negative safe integer (and so is every
 * figure of the bill: a sum cannot overflow into it), else no usage and the problems.
 */
export function checkUsage(report: UsageReport | undefined): { usage?: BilledUsage; problems: UsageProblem[] } {
  if (report === undefined) return { problems: [{ field: "usage", given: undefined, expected: "the answer's usage object" }] };
  const problems: UsageProblem[] = [];
  const checked: Record<string, number> = {};
  for (const [path, value] of Object.entries(report.figures)) {
    if ((value === undefined || value === null) && report.optional.includes(path)) checked[path] = 0;
    else if (isCount(value)) checked[path] = value;
    else problems.push({ field: `usage.${path}`, given: value, expected: EXPECTED });
  }
  if (problems.length > 0) return { problems };
  const usage = report.bill(checked);
  for (const [field, value] of Object.entries(usage)) {
    if (field === "compaction" && typeof value === "object" && value !== null) {
      for (const [inner, figure] of Object.entries(value)) if (figure !== undefined && !isCount(figure)) problems.push({ field: `compaction.${inner}`, given: figure, expected: EXPECTED });
    } else if (value !== undefined && !isCount(value)) problems.push({ field, given: value, expected: EXPECTED });
  }
  return problems.length > 0 ? { problems } : { usage, problems };
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** `a.b` of a parsed JSON value, undefined where a step is not an object. */
function valueAt(value: unknown, path: string): unknown {
  let node = value;
  for (const key of path.split(".")) {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
