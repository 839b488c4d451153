/**
 * ProviderSummarizer: asks a model (any Provider with `complete()`) for the summary.
 *
 * The prompt asks for what an agent needs later — decisions, open tasks, file names, identifiers,
 * numbers and the user's preferences — within `maxTokens`. With a `previousSummary` the model is
 * told to UPDATE that summary into one text (never to append a second summary after it), so a
 * long session carries one summary, not a chain. The reply is clipped to `maxTokens` (counted by
 * `counter`) in case the model ignores the limit. An empty reply, or a provider error, rejects:
 * the strategy's guard (summarizer-guard.ts) then falls back to dropping. No request exceeds the
 * model's window: a transcript too long for it is summarized in parts (summary-requests.ts).
 */
import type { Summarizer } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { Provider } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import type { TextCounter } from "./extractive-summarizer.js";
import { transcriptLines } from "./message-text.js";
import { summarizeInParts, summaryLimits } from "./summary-requests.js";

export interface ProviderSummarizerOptions {
  /** Model to request (default: the provider's own default). */
  model?: string;
  /** Counts the reply's tokens to enforce maxTokens (default ⌈chars / 4⌉). */
  counter?: TextCounter;
  /** Longest text taken from one message into the prompt (default 4 000 chars). */
  maxCharsPerMessage?: number;
  /**
   * The summarizer model's window in tokens: no request exceeds it (summary-requests.ts). Default:
   * the provider's `context_window` when the summarizer uses the provider's own model, else the
   * model registry's window for `model`; unknown → one request, unchecked.
   */
  contextWindow?: number;
  name?: string;
}

export const SUMMARY_SYSTEM_PROMPT = [
  "You compress the earlier part of a conversation between a user and an AI agent so the agent can continue without it.",
  "Keep, verbatim where possible: decisions made and their reasons; open tasks and next steps; file names and paths;",
  "identifiers (ids, names of functions, tables, tickets, branches); numbers, amounts, dates and versions;",
  "the user's stated preferences and constraints; errors seen and how they were resolved; which tools were used for what.",
  "Leave out pleasantries and anything superseded later in the conversation. Write terse bullet points, no preamble.",
].join(" ");

export class ProviderSummarizer implements Summarizer {
  readonly name: string;
  readonly #provider: Provider & Required<Pick<Provider, "complete">>;
  readonly #options: ProviderSummarizerOptions;

  constructor(provider: Provider, options: ProviderSummarizerOptions = {}) {
    if (typeof provider?.complete !== "function") {
      throw createError("INVALID_ARGUMENT", "ProviderSummarizer needs a provider with complete()", {
        module: "summarizer",
        expected: "a Provider with complete(request)",
        given: provider,
      });
    }
    this.#provider = provider as Provider & Required<Pick<Provider, "complete">>;
    this.#options = options;
    this.name = options.name ?? "provider";
  }

  /** The request sent to the model for `messages` in one part (exposed for tests and for people tuning the prompt). */
  buildPrompt(messages: readonly Message[], options: { previousSummary?: string; maxTokens: number; focus?: string }): Message[] {
    return this.#prompt(transcriptLines(messages, this.#options.maxCharsPerMessage).join("\n"), options.previousSummary, options.maxTokens, options.focus);
  }

  async summarize(messages: readonly Message[], options: { previousSummary?: string; maxTokens: number; signal?: AbortSignal; focus?: string }): Promise<string> {
    options.signal?.throwIfAborted();
    const limits = summaryLimits(...(await this.#modelAndWindow()), options.maxTokens);
    const clip = (text: string, maxTokens: number) => clipToTokens(text, maxTokens, { countText: limits.countText });
    const lines = transcriptLines(messages, this.#options.maxCharsPerMessage);
    return summarizeInParts(lines, limits, options.previousSummary, (body, previous) => this.#prompt(body, previous, options.maxTokens, options.focus), (prompt) => this.#complete(prompt, options), clip);
  }

  #prompt(body: string, previousSummary: string | undefined, maxTokens: number, focus?: string): Message[] {
    const words = Math.max(20, Math.floor(maxTokens * 0.7));
    const task = previousSummary
      ? `Here is the current summary of the conversation so far:\n<summary>\n${previousSummary}\n</summary>\n\n` +
        `Update it with the new messages below. Return ONE updated summary that replaces the current one ` +
        `(merge new facts in, drop what the new messages supersede); do not append a second summary.`
      : "Summarize the messages below.";
    // Manual compaction's focus (context.compact({ focus })): what the summary must keep above all.
    const steer = focus?.trim() ? `\nFocus on: ${focus.trim()} — keep everything about it, in detail.` : "";
    return [
      { role: "system", content: SUMMARY_SYSTEM_PROMPT },
      { role: "user", content: `${task}${steer}\nStay under ${maxTokens} tokens (about ${words} words).\n\n<messages>\n${body}\n</messages>` },
    ];
  }

  async #complete(prompt: Message[], options: { maxTokens: number; signal?: AbortSignal }): Promise<string> {
    options.signal?.throwIfAborted();
    const request = { messages: prompt, ...(this.#options.model ? { model: this.#options.model } : {}) };
    const response = await this.#provider.complete(request);
    options.signal?.throwIfAborted();
    const text = replyText(response?.message).trim();
    if (!text) {
      throw createError("SUMMARIZER_FAILED", `summarizer "${this.name}": the model returned no text`, { module: this.name, expected: "summary text", given: response?.message });
    }
    return clipToTokens(text, options.maxTokens, this.#options.counter ?? { countText: (t) => Math.ceil(t.length / 4) });
  }

  /** The model the requests go to and its window (see ProviderSummarizerOptions.contextWindow). */
  async #modelAndWindow(): Promise<[string | undefined, number | undefined]> {
    const info = await this.#provider.getInfo();
    const defaults = info?.defaults;
    const model = this.#options.model ?? defaults?.model;
    const providersOwn = this.#options.model === undefined || this.#options.model === defaults?.model;
    return [model, this.#options.contextWindow ?? (providersOwn ? defaults?.context_window : undefined)];
  }
}

function replyText(message: Message | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

/** The longest head of `text`, cut at a line end where possible, that fits `maxTokens`. */
export function clipToTokens(text: string, maxTokens: number, counter: TextCounter): string {
  if (counter.countText(text) <= maxTokens) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (counter.countText(`${text.slice(0, mid)}…`) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  const head = text.slice(0, lo);
  const lineEnd = head.lastIndexOf("\n");
  return lineEnd > lo / 2 ? head.slice(0, lineEnd) : `${head}…`;
}
