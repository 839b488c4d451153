/**
 * The options both integrations take, checked once when the helper is made (a mistake surfaces at
 * start-up, not at the hundredth step).
 *
 * | option            | meaning                                                                              |
 * |-------------------|--------------------------------------------------------------------------------------|
 * | `model`           | a model the token registry knows: its counter, and (without `budget`) its window     |
 * | `budget`          | tokens the whole request may use (messages + tools + priming)                        |
 * | `maxOutputTokens`, `safetyMargin` | taken off the model's window when the budget comes from the model      |
 * | `strategies`      | compaction strategies, run in order before the final fit                             |
 * | `onReport`        | called after every fit with the report: tokens, budget, what was kept, dropped, cut  |
 */
import type { CompactionStrategy } from "@amplifier-ts/contracts";
import { invalidArgument } from "./invalid-argument.js";
import type { FitReport } from "@amplifier-ts/window";

export interface WindowEvent {
  /** Which integration fitted the window. */
  readonly source: "prepareStep" | "middleware";
  /** The step of generateText / streamText / an agent (prepareStep only). */
  readonly stepNumber?: number;
  /** Messages given, and sent (the window). */
  readonly messagesIn: number;
  readonly messagesOut: number;
  /** The fitter's report: tokens, budget, kept / dropped / truncated with reasons. */
  readonly report: FitReport;
}

export interface WindowOptions {
  model?: string;
  budget?: number;
  maxOutputTokens?: number;
  safetyMargin?: number;
  strategies?: readonly CompactionStrategy[];
  onReport?: (event: WindowEvent) => void;
}

export function checkWindowOptions(options: unknown, path: string): asserts options is WindowOptions {
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw invalidArgument(path, "an options object ({ model?, budget?, … })", options);
  const o = options as Record<string, unknown>;
  if (o.model !== undefined && (typeof o.model !== "string" || o.model.trim() === "")) throw invalidArgument(`${path}.model`, "a non-empty model name the token registry knows", o.model);
  for (const key of ["budget", "maxOutputTokens"] as const) {
    const value = o[key];
    if (value !== undefined && !(typeof value === "number" && Number.isInteger(value) && value > 0)) throw invalidArgument(`${path}.${key}`, "a positive whole number of tokens", value);
  }
  if (o.safetyMargin !== undefined && !(typeof o.safetyMargin === "number" && Number.isFinite(o.safetyMargin) && o.safetyMargin >= 0)) throw invalidArgument(`${path}.safetyMargin`, "a finite number of tokens ≥ 0", o.safetyMargin);
  if (o.strategies !== undefined && !Array.isArray(o.strategies)) throw invalidArgument(`${path}.strategies`, "an array of compaction strategies", o.strategies);
  if (o.onReport !== undefined && typeof o.onReport !== "function") throw invalidArgument(`${path}.onReport`, "a function (event) => void", o.onReport);
}

/** The fitter's budget options, without the ones left undefined. */
export function budgetOptions(options: WindowOptions): Pick<WindowOptions, "model" | "budget" | "maxOutputTokens" | "safetyMargin" | "strategies"> {
  const { model, budget, maxOutputTokens, safetyMargin, strategies } = options;
  return Object.fromEntries(Object.entries({ model, budget, maxOutputTokens, safetyMargin, strategies }).filter(([, v]) => v !== undefined));
}
