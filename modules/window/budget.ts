/**
 * The token budget of one window request. First source that applies wins:
 *
 * | # | source           | budget                                                                  |
 * |---|------------------|-------------------------------------------------------------------------|
 * | 1 | `tokenBudget`    | as given                                                                |
 * | 2 | `providerInfo`   | `defaults.context_window − max_output − safetyMargin`, where max_output is `defaults.max_output_tokens`, else the model registry's, else 0 |
 * | 3 | model registry   | `contextWindow − maxOutputTokens − safetyMargin` of `modelInfo` (or of `model`, looked up) |
 * | 4 | `maxTokens`      | as given (default 100,000)                                              |
 *
 * A source applies when its number is present (`tokenBudget !== undefined`, `context_window`
 * present). The budget it gives must be a positive finite number, else `INVALID_BUDGET` naming
 * the source and its numbers — a bad budget is never silently replaced by the next source.
 */
import { createError } from "@amplifier-ts/contracts";
import { getModelInfo } from "@amplifier-ts/tokens";
import type { ProviderInfo } from "@amplifier-ts/contracts";

export interface BudgetInput {
  tokenBudget?: number | undefined;
  providerInfo?: ProviderInfo | undefined;
  /** Looked up in the model registry when `modelInfo` is not given. */
  model?: string | undefined;
  modelInfo?: { readonly contextWindow: number; readonly maxOutputTokens: number } | undefined;
  /** Tokens kept free below context_window − max output (default 1,000). */
  safetyMargin?: number;
  /** The budget when no other source applies (default 100,000). */
  maxTokens?: number;
}

export type BudgetSource = "tokenBudget" | "provider" | "model-registry" | "maxTokens";

export interface ResolvedBudget {
  readonly budget: number;
  readonly source: BudgetSource;
}

export const DEFAULT_SAFETY_MARGIN = 1_000;
export const DEFAULT_MAX_TOKENS = 100_000;

export function resolveBudget(input: BudgetInput = {}): number {
  return explainBudget(input).budget;
}

/** The budget and the source it came from (see the table above). */
export function explainBudget(input: BudgetInput = {}): ResolvedBudget {
  const { tokenBudget, providerInfo, model } = input;
  const safetyMargin = input.safetyMargin ?? DEFAULT_SAFETY_MARGIN;
  if (typeof safetyMargin !== "number" || !Number.isFinite(safetyMargin) || safetyMargin < 0) {
    throw createError("INVALID_ARGUMENT", "safetyMargin must be a finite number ≥ 0", {
      module: "context/window",
      path: "safetyMargin",
      expected: "a finite number ≥ 0",
      given: safetyMargin,
    });
  }
  const modelInfo = input.modelInfo ?? (typeof model === "string" ? getModelInfo(model) : undefined);

  if (tokenBudget !== undefined) return checked(tokenBudget, "tokenBudget", { tokenBudget });

  const defaults = providerInfo?.defaults;
  if (defaults?.context_window !== undefined) {
    const contextWindow = defaults.context_window;
    const maxOutput = defaults.max_output_tokens ?? modelInfo?.maxOutputTokens ?? 0;
    return checked(contextWindow - maxOutput - safetyMargin, "provider", {
      provider: providerInfo?.id,
      contextWindow,
      maxOutputTokens: maxOutput,
      safetyMargin,
    });
  }

  if (modelInfo) {
    return checked(modelInfo.contextWindow - modelInfo.maxOutputTokens - safetyMargin, "model-registry", {
      model: model ?? providerInfo?.defaults?.model,
      contextWindow: modelInfo.contextWindow,
      maxOutputTokens: modelInfo.maxOutputTokens,
      safetyMargin,
    });
  }

  const maxTokens = input.maxTokens ?? DEFAULT_MAX_TOKENS;
  return checked(maxTokens, "maxTokens", { maxTokens });
}

function checked(budget: unknown, source: BudgetSource, numbers: Record<string, unknown>): ResolvedBudget {
  // Whole tokens: a fractional budget is a caller's mistake (a ratio applied twice), not a size.
  if (typeof budget === "number" && Number.isInteger(budget) && budget > 0) return { budget, source };
  const formula = Object.entries(numbers)
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(", ");
  throw createError("INVALID_BUDGET", `The budget from ${source} is ${String(budget)} (${formula})`, {
    module: "context/window",
    source,
    ...numbers,
    budget,
    expected: "a positive whole number of tokens",
    given: budget,
  });
}
