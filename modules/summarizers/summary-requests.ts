/**
 * A summarizer's requests never exceed its model's window: what is to be summarized is split into
 * parts that fit, summarized in turn, each part updating the summary of the ones before (the
 * "update, do not append" prompt of provider-summarizer.ts).
 *
 * | quantity         | value                                                                             |
 * |------------------|-----------------------------------------------------------------------------------|
 * | window           | `contextWindow` option; else the provider's `context_window` (when the summarizer uses the provider's own model); else the model registry's |
 * | input limit      | window − the summary's `maxTokens` (the reply) − a margin (2 % of the window, at least 64) |
 * | a part           | whole transcript lines (one per message, each already cut to `maxCharsPerMessage`) while the prompt counts ≤ the input limit; a single line too long for an empty prompt is cut to fit |
 * | counted          | with the model's tokenizer (@amplifier-ts/tokens) when the registry knows it, else one token per UTF-8 byte (an upper bound) |
 * | no room          | the prompt without any line does not fit: SUMMARIZER_FAILED with the numbers (the strategy's guard then drops instead) |
 * | window unknown   | one request, as before                                                             |
 */
import type { Message } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import { getModelInfo, getTokenCounter } from "@amplifier-ts/tokens";

/** Counts a request's messages the way the model's API bills them. */
export type RequestCounter = (messages: readonly Message[]) => number;

export interface SummaryLimits {
  /** Tokens the request's messages may count, or undefined when the window is unknown. */
  readonly inputLimit: number | undefined;
  readonly countRequest: RequestCounter;
  readonly countText: (text: string) => number;
  readonly window: number | undefined;
}

/** The limits for `model` with a window of `window` tokens (undefined: unknown) and a reply of `maxTokens`. */
export function summaryLimits(model: string | undefined, window: number | undefined, maxTokens: number): SummaryLimits {
  const known = model === undefined ? undefined : getModelInfo(model);
  const counter = known ? getTokenCounter(model) : undefined;
  const countText = counter ? (text: string) => counter.countText(text) : (text: string) => Buffer.byteLength(text, "utf8");
  const countRequest: RequestCounter = counter ? (messages) => counter.countRequest(messages) : (messages) => messages.reduce((n, m) => n + 8 + countText(typeof m.content === "string" ? m.content : JSON.stringify(m.content)), 8);
  const size = window ?? known?.contextWindow;
  const inputLimit = size === undefined ? undefined : size - maxTokens - Math.max(64, Math.ceil(size * 0.02));
  return { inputLimit, countRequest, countText, window: size };
}

/**
 * Splits transcript `lines` into parts whose prompt (`promptOf(part, previous)`) fits the limit,
 * summarizing each in turn with `summarizeOne`; returns the last summary.
 */
export async function summarizeInParts(
  lines: readonly string[],
  limits: SummaryLimits,
  previousSummary: string | undefined,
  promptOf: (body: string, previous: string | undefined) => Message[],
  summarizeOne: (prompt: Message[]) => Promise<string>,
  clip: (text: string, maxTokens: number) => string,
): Promise<string> {
  const { inputLimit, countRequest, countText } = limits;
  if (inputLimit === undefined) return summarizeOne(promptOf(lines.join("\n"), previousSummary));
  let previous = previousSummary;
  let next = 0;
  do {
    const fixed = countRequest(promptOf("", previous));
    if (fixed >= inputLimit) {
      throw createError("SUMMARIZER_FAILED", `the summarizer model's window (${limits.window} tokens) cannot hold its prompt (${fixed} tokens) and the summary`, {
        module: "summarizer",
        expected: `a prompt under ${inputLimit} tokens`,
        given: fixed,
        window: limits.window,
      });
    }
    const part: string[] = [];
    let used = fixed;
    while (next < lines.length) {
      const cost = countText(lines[next]!) + 1;
      if (used + cost > inputLimit) break;
      part.push(lines[next++]!);
      used += cost;
    }
    // One line longer than a whole part: its head, cut to what is left.
    if (part.length === 0) part.push(clip(lines[next++]!, Math.max(1, inputLimit - fixed - 8)));
    // Counted as sent (a concatenation may tokenize a little differently than its lines): trimmed until it fits.
    let prompt = promptOf(part.join("\n"), previous);
    while (countRequest(prompt) > inputLimit && part.length > 1) {
      part.pop();
      next--;
      prompt = promptOf(part.join("\n"), previous);
    }
    if (countRequest(prompt) > inputLimit) prompt = promptOf(clip(part[0]!, Math.max(1, Math.floor((inputLimit - fixed) / 2))), previous);
    previous = await summarizeOne(prompt);
  } while (next < lines.length);
  return previous;
}
