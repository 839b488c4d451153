/**
 * countTokens(): the one-call form — the prompt tokens of a chat request for `model`, as
 * OpenAI bills it (per-message overhead, names, reply priming, tool calls, tool definitions).
 * It reproduces the API-verified figures of OpenAI's cookbook "How to count tokens with
 * tiktoken" exactly (test/cookbook.test.ts). Synchronous; shares the caches of
 * getTokenCounter(), so counting a growing history again only tokenizes the new messages.
 */
import { createError } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { ToolDefinition } from "@amplifier-ts/contracts";
import { getTokenCounter, type TokenCounterOptions } from "./token-counter.js";

export interface CountTokensOptions extends TokenCounterOptions {
  model: string;
  tools?: ToolDefinition[];
}

export function countTokens(messages: Message[], options: CountTokensOptions): number {
  if (typeof options !== "object" || options === null) {
    throw createError("INVALID_ARGUMENT", undefined, {
      module: "@amplifier-ts/tokens",
      path: "options",
      expected: "{ model: string, tools?: ToolDefinition[] }",
      given: options,
    });
  }
  const { model, tools, ...counterOptions } = options;
  if (typeof model !== "string" || model.trim() === "") {
    // Checked here: getTokenCounter() would quietly take its default model for undefined.
    throw createError("INVALID_ARGUMENT", undefined, {
      module: "@amplifier-ts/tokens",
      path: "options.model",
      expected: "a non-empty model name",
      given: model,
    });
  }
  return getTokenCounter(model, counterOptions).countRequest(messages, tools);
}
