/**
 * ProviderSummarizer: asks a model (any Provider with `complete()`) for the summary.
 *
 * The prompt asks for what an agent needs later — decisions, open tasks, file names, identifiers,
 * numbers and the user's preferences — within `maxTokens`. With a `previousSummary` the model is
 * told to UPDATE that summary into one text (never to append a second summary after it), so a
 * long session carries one summary, not a chain. The reply is clipped to `maxTokens` (counted by
 * `counter`) in case the model ignores the limit. An empty reply, or a provider error, rejects:
 * the strategy's guard (summarizer-guard.ts) then falls back to dropping.
 */
import type { Summarizer } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { Provider } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import type { TextCounter } from "./extractive-summarizer.js";
import { transcript } from "./message-text.js";

export interface ProviderSummarizerOptions {
  /** Model to request (default: the provider's own default). */
  model?: string;
  /** Counts the reply's tokens to enforce maxTokens (default ⌈chars / 4⌉). */
  counter?: TextCounter;
  /** Longest text taken from one message into the prompt (default 4 000 chars). */
  maxCharsPerMessage?: number;
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

  /** The request sent to the model (exposed for tests and for people tuning the prompt). */
  buildPrompt(messages: readonly Message[], options: { previousSummary?: string; maxTokens: number }): Message[] {
    const words = Math.max(20, Math.floor(options.maxTokens * 0.7));
    const task = options.previousSummary
      ? `Here is the current summary of the conversation so far:\n<summary>\n${options.previousSummary}\n</summary>\n\n` +
        `Update it with the new messages below. Return ONE updated summary that replaces the current one ` +
        `(merge new facts in, drop what the new messages supersede); do not append a second summary.`
      : "Summarize the messages below.";
    const body = transcript(messages, this.#options.maxCharsPerMessage);
    return [
      { role: "system", content: SUMMARY_SYSTEM_PROMPT },
      { role: "user", content: `${task}\nStay under ${options.maxTokens} tokens (about ${words} words).\n\n<messages>\n${body}\n</messages>` },
    ];
  }

  async summarize(messages: readonly Message[], options: { previousSummary?: string; maxTokens: number; signal?: AbortSignal }): Promise<string> {
    options.signal?.throwIfAborted();
    const request = { messages: this.buildPrompt(messages, options), ...(this.#options.model ? { model: this.#options.model } : {}) };
    const response = await this.#provider.complete(request);
    options.signal?.throwIfAborted();
    const text = replyText(response?.message).trim();
    if (!text) {
      throw createError("SUMMARIZER_FAILED", `summarizer "${this.name}": the model returned no text`, { module: this.name, expected: "summary text", given: response?.message });
    }
    return clipToTokens(text, options.maxTokens, this.#options.counter ?? { countText: (t) => Math.ceil(t.length / 4) });
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
