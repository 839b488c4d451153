/**
 * The options of the window fitter behind both drop-ins: LangChain messages (format "langchain"
 * of @amplifier-ts/window, read by duck typing: a kept message comes back as the same object, a
 * truncated or made-up one is built with the caller's own message class), the tools as the
 * provider receives them, and a model the token registry knows.
 *
 * An unknown model is refused here even with a budget: its counts would be a guess (the counter
 * would fall back to an approximate tokenizer), and exact counts are what this package is for.
 */
import type { ToolDefinition } from "@amplifier-ts/contracts";
import { getModelInfo } from "@amplifier-ts/tokens";
import type { FitOptions } from "@amplifier-ts/window";
import { langchainErrors } from "./langchain-errors.js";

export interface LangChainFitOptions {
  model?: string | undefined;
  budget?: number | undefined;
  maxOutputTokens?: number | undefined;
  safetyMargin?: number | undefined;
  tools?: readonly ToolDefinition[] | undefined;
}

export function fitterOptions(options: LangChainFitOptions): FitOptions {
  const { model, budget } = options;
  if (model === undefined && budget === undefined) {
    throw langchainErrors.create("NO_MODEL", undefined, { module: "langchain", path: "model", expected: "a model name the token registry knows, or a budget", given: undefined });
  }
  if (model !== undefined && getModelInfo(model) === undefined) {
    throw langchainErrors.create("NO_MODEL", `the token registry does not know "${model}": its counts would be a guess`, { module: "langchain", path: "model", expected: "a model name the token registry knows (registerModel() from @amplifier-ts/tokens adds one)", given: model });
  }
  return {
    format: "langchain",
    ...(model === undefined ? {} : { model }),
    ...(budget === undefined ? {} : { budget }),
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    ...(options.safetyMargin === undefined ? {} : { safetyMargin: options.safetyMargin }),
    ...(options.tools === undefined ? {} : { tools: options.tools }),
  };
}
