/**
 * The options of fitWindow / createWindowFitter, checked once when the fitter is made: the token
 * counter, the budget and the tool definitions are resolved then, not per call.
 *
 * | option                                  | meaning                                                                   |
 * |-----------------------------------------|---------------------------------------------------------------------------|
 * | `model`                                 | a model the token registry knows (`getModelInfo`): its counter, and the budget when none is given |
 * | `budget`                                | tokens the whole request may use (messages + tools + reply priming); wins over the model's window |
 * | `maxOutputTokens`, `safetyMargin`       | budget from the model: context window − max output − margin (resolveBudget; margin 1,000) |
 * | `tools`                                 | tool definitions in the format's own shape (fit-tools.ts); counted        |
 * | `strategies`, `search`                  | compaction strategies run in order before the final fit (`search` for a recall strategy) |
 * | `format`                                | forces the format instead of detecting it (fit-formats.ts)                 |
 * | `system`                                | Anthropic's top-level system, when the messages array is given alone      |
 * | `compactThreshold`, `compactTarget`     | the cut's hysteresis (WindowAssembler; defaults 0.9 and 0.7)               |
 * | `minResultTokens`                       | tool results are capped no lower than this before whole turns are dropped  |
 * | `appendOnly`                            | the caller promises each call's array is the last one grown at its end: a fitter reads only the new items (window-fitter.ts) |
 * | `thinking`                              | `drop-older` (default): turns before the last one lose their thinking blocks (all of a message's or none; the saving is reported); `keep` |
 *
 * Neither `model` nor `budget`, or a model the registry does not know without a budget:
 * WINDOW_FIT/NO_BUDGET — a window fitted to a guessed budget is the failure this library exists to
 * prevent. A `budget` without a `model` counts with the default model's tokenizer (gpt-4o, o200k).
 */
import type { CompactionStrategy, HistorySearch, ToolDefinition } from "@amplifier-ts/contracts";
import { getModelInfo, getTokenCounter, type TokenCounter } from "@amplifier-ts/tokens";
import { explainBudget } from "./budget.js";
import { fitError } from "./fit-errors.js";
import { WINDOW_FORMATS, type WindowFormat } from "./fit-formats.js";
import { toolDefinitions } from "./fit-tools.js";
import { thinkingPolicies, type ThinkingPolicy } from "./window-builder.js";

export interface FitOptions {
  /** A model the token registry knows: gives the counter and, without `budget`, the budget. */
  model?: string | undefined;
  /** Tokens the whole request may use (messages + tools + reply priming). */
  budget?: number | undefined;
  /** With `model` and no `budget`: the output reserved (default: the registry's max output). */
  maxOutputTokens?: number | undefined;
  /** With `model` and no `budget`: tokens kept free below the window (default 1,000). */
  safetyMargin?: number | undefined;
  /** Tool definitions in the format's own shape (an array, or an AI SDK ToolSet record); counted. */
  tools?: readonly unknown[] | Readonly<Record<string, unknown>> | undefined;
  /** Compaction strategies (contract instances), run in order before the final fit. */
  strategies?: readonly CompactionStrategy[] | undefined;
  /** Search over the history, for a recall strategy. */
  search?: HistorySearch | undefined;
  /** Forces the format; otherwise detected. */
  format?: WindowFormat | undefined;
  /** Anthropic's top-level system (a string or text blocks), when the messages array is given alone. */
  system?: unknown;
  /** No compaction while the request is ≤ this share of the budget (default 0.9). */
  compactThreshold?: number | undefined;
  /** A new cut brings the window down to this share of the budget (default 0.7). */
  compactTarget?: number | undefined;
  /** Tool results are capped no lower than this before whole turns are dropped. */
  minResultTokens?: number | undefined;
  /**
   * The caller's promise that each call's array is the previous call's array with items added at
   * its end (an agent loop that pushes). A fitter then reads only the new items — O(new) a call
   * instead of one reference comparison per item given — after checking that the first item and the
   * last item it read are still in their places; when they are not (another conversation, a shorter
   * array) it reads the array whole, as without the option. An item replaced in the middle of the
   * array is not seen: leave this off if the loop edits or rewrites its history. Default false.
   */
  appendOnly?: boolean | undefined;
  /** Thinking of turns before the last one: `drop-older` (default) or `keep` (window-builder.ts). */
  thinking?: ThinkingPolicy | undefined;
}

export interface ResolvedFitOptions {
  readonly counter: TokenCounter;
  readonly budget: number;
  readonly tools: readonly ToolDefinition[];
  readonly strategies: readonly CompactionStrategy[];
  readonly search: HistorySearch | undefined;
  readonly format: WindowFormat | undefined;
  readonly system: unknown;
  readonly compactThreshold: number | undefined;
  readonly compactTarget: number | undefined;
  readonly minResultTokens: number | undefined;
  readonly appendOnly: boolean;
  readonly thinking: ThinkingPolicy;
}

export function resolveFitOptions(options: FitOptions): ResolvedFitOptions {
  if (typeof options !== "object" || options === null) {
    throw fitError("NO_BUDGET", "fitWindow(messages, options) needs options with a model or a budget", { path: "options", expected: "{ model } or { budget }", given: options });
  }
  const { model, budget, format } = options;
  if (model !== undefined && (typeof model !== "string" || model === "")) throw invalid("model", "a model name", model);
  if (format !== undefined && !WINDOW_FORMATS.includes(format)) throw invalid("format", WINDOW_FORMATS.join(" | "), format);
  if (options.thinking !== undefined && !thinkingPolicies.includes(options.thinking)) throw invalid("thinking", thinkingPolicies.join(" | "), options.thinking);
  if (options.strategies !== undefined && !(Array.isArray(options.strategies) && options.strategies.every((s) => typeof s?.compact === "function"))) {
    throw invalid("strategies", "an array of CompactionStrategy instances ({ name, compact(messages, context) })", options.strategies);
  }
  if (options.appendOnly !== undefined && typeof options.appendOnly !== "boolean") throw invalid("appendOnly", "true or false", options.appendOnly);
  return {
    counter: getTokenCounter(model),
    budget: budgetOf(options),
    tools: toolDefinitions(options.tools),
    strategies: options.strategies ?? [],
    search: options.search,
    format,
    system: options.system,
    compactThreshold: options.compactThreshold,
    compactTarget: options.compactTarget,
    minResultTokens: options.minResultTokens,
    appendOnly: options.appendOnly === true,
    thinking: options.thinking ?? "drop-older",
  };
}

function budgetOf(options: FitOptions): number {
  const { model, budget, maxOutputTokens, safetyMargin } = options;
  if (budget !== undefined) return explainBudget({ tokenBudget: budget }).budget;
  if (model === undefined) {
    throw fitError("NO_BUDGET", "fitWindow needs a model the token registry knows, or a budget", { path: "options", expected: "{ model: \"gpt-4o\" } or { budget: 100000 }", given: Object.keys(options) });
  }
  const info = getModelInfo(model);
  if (!info) {
    throw fitError("NO_BUDGET", `The model "${model}" is not in the token registry, so its window is unknown: give a budget, or registerModel() it`, {
      path: "options.model",
      expected: "a registered model, or options.budget",
      given: model,
    });
  }
  if (maxOutputTokens !== undefined && !(Number.isInteger(maxOutputTokens) && maxOutputTokens >= 0)) throw invalid("maxOutputTokens", "a whole number ≥ 0", maxOutputTokens);
  return explainBudget({
    model,
    modelInfo: { contextWindow: info.contextWindow, maxOutputTokens: maxOutputTokens ?? info.maxOutputTokens },
    ...(safetyMargin === undefined ? {} : { safetyMargin }),
  }).budget;
}

function invalid(path: string, expected: string, given: unknown) {
  return fitError("INVALID_OPTIONS", `options.${path} is not ${expected}`, { path: `options.${path}`, expected, given });
}
