/**
 * TokenCounter: counts a chat request the way the model's provider bills it, message by
 * message, so context managers can cut windows on prefix sums.
 *
 * ADDITIVITY (a contract, property-tested):
 *   countRequest(ms, tools) === countMessages(ms) + replyPriming + (tools?.length ? countTools(tools) : 0)
 *   countMessages(ms)       === Σ countMessage(m)
 * The safety factor is applied to each part (each message, the priming, the tool block) and
 * rounded up there, so the sums stay exact integers and every part errs high.
 *
 * Which tokenizer, encoding and factor:
 * | situation                       | tokenizer        | safety factor (default)                  |
 * |---------------------------------|------------------|------------------------------------------|
 * | registered OpenAI model         | its tiktoken encoding | 1.0 (exact)                         |
 * | registered other family         | its tiktoken encoding | the family's (anthropic 1.2 …) or the registered one |
 * | unknown model                   | o200k_base, ONE warning per name | 1.2 ("other")            |
 * | `options.tokenizer` given       | yours            | 1.0 (yours is assumed to be the model's) |
 * `options.safetyFactor` overrides the default in every case.
 */
import { AmplifierError, createError, isAmplifierError } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { ToolDefinition } from "@amplifier-ts/contracts";
import type { Tokenizer } from "@amplifier-ts/contracts";
import { chatFormatFor } from "./chat-format.js";
import { countMessageTokens, type ContentRules } from "./content-rules.js";
import { imagePricingFor, imagePricingKey } from "./image-tokens.js";
import { FAMILY_SAFETY_FACTORS } from "./known-models.js";
import { MessageTokenCache } from "./message-cache.js";
import { registerCarriedCache } from "./carried-counts.js";
import { getModelInfo, type ModelInfo } from "./model-registry.js";
import { getTiktokenTokenizer } from "./tiktoken-tokenizer.js";
import { countToolDefinitions, validateToolDefinitions } from "./tool-definitions.js";
import { warnOnce } from "./warn-once.js";

export interface TokenCounter {
  /** The model name as given. */
  readonly model: string;
  /** The encoding counted with (the tokenizer's). */
  readonly encoding: string;
  /** What the registry knows about the model; undefined for an unknown model. */
  readonly modelInfo: ModelInfo | undefined;
  /** The factor every count is multiplied by (then rounded up). */
  readonly safetyFactor: number;
  /** Tokens added once per request for the assistant turn the model completes. */
  readonly replyPriming: number;
  /** One message including its per-message overhead; cached (see message-cache.ts). */
  countMessage(message: Message): number;
  /** Σ countMessage — no priming. */
  countMessages(messages: readonly Message[]): number;
  /** A whole request: messages + reply priming + tool definitions. */
  countRequest(messages: readonly Message[], tools?: readonly ToolDefinition[]): number;
  /** The tool definitions block; 0 for an empty list. */
  countTools(tools: readonly ToolDefinition[]): number;
  /** Plain text, no framing. */
  countText(text: string): number;
  /**
   * A proven upper bound of countMessage(message), without tokenizing: the same rules (TOKENS.md)
   * with each text's UTF-8 byte length in place of its token count — a byte-level BPE token (every
   * built-in encoding) is at least one byte — and the same safety factor. O(length of its text),
   * no cache. Undefined for a counter whose tokenizer is the caller's (`options.tokenizer`): no bound
   * is known for it. A window engine prices not-yet-counted messages with it while the window is far
   * from its budget (the exact count decides near it).
   */
  boundMessage(message: Message): number | undefined;
}

export interface TokenCounterOptions {
  /** Count with this tokenizer instead of tiktoken (see contracts/tokenizer.ts). */
  tokenizer?: Tokenizer;
  /** Multiply every count by this (> 0); defaults in the table above. */
  safetyFactor?: number;
  /** Where the unknown-model warning goes (once per model name); default console.warn. */
  onWarning?: (message: string) => void;
}

/** The model assumed when getTokenCounter() is called without one. */
export const DEFAULT_MODEL = "gpt-4o";

/** Caches are shared by every counter with the same tokenizer and image rule. */
const caches = new WeakMap<Tokenizer, { messages: Map<string, MessageTokenCache>; tools: Map<string, number> }>();

export function getTokenCounter(model: string = DEFAULT_MODEL, options: TokenCounterOptions = {}): TokenCounter {
  validateArguments(model, options);
  const info = getModelInfo(model);
  if (!info && !options.tokenizer) {
    warnOnce(
      model,
      `amplifier-ts: model "${model}" is not in the model registry; counting with o200k_base ` +
        `and safety factor ${FAMILY_SAFETY_FACTORS.other} (an approximation). ` +
        `Register it with registerModel() for exact limits.`,
      options.onWarning,
    );
  }
  const source = options.tokenizer ?? getTiktokenTokenizer(info?.encoding ?? "o200k_base");
  const tokenizer = options.tokenizer ? guardTokenizer(options.tokenizer) : source;
  const factor = options.safetyFactor ?? (options.tokenizer ? 1 : (info?.safetyFactor ?? FAMILY_SAFETY_FACTORS.other));
  const rules: ContentRules = {
    tokenizer,
    format: chatFormatFor(tokenizer.encoding),
    images: imagePricingFor(info?.family ?? "other", info?.imageTilePrice),
  };
  const shared = cachesFor(source);
  const pricingKey = imagePricingKey(rules.images);
  let messageCache = shared.messages.get(pricingKey);
  if (!messageCache) {
    messageCache = new MessageTokenCache();
    shared.messages.set(pricingKey, messageCache);
    // Built-in encodings only: a custom tokenizer's name does not identify it (carried-counts.ts).
    if (!options.tokenizer) registerCarriedCache(`${tokenizer.encoding}|${pricingKey}`, messageCache);
  }
  const cache = messageCache;
  const scale = factor === 1 ? (n: number) => n : (n: number) => Math.ceil(n * factor - 1e-9);
  const countRaw = (message: Message) => countMessageTokens(message, rules);
  // Byte-level BPE: each token covers at least one byte, so bytes bound tokens (built-in encodings only).
  const boundRules: ContentRules | undefined = options.tokenizer ? undefined : { ...rules, tokenizer: { encoding: tokenizer.encoding, count: utf8Length } };

  // `index` only names the message in an error; the path string is built on failure only.
  const countMessage = (message: Message, index?: number): number => {
    try {
      return scale(cache.getOrCount(message, countRaw));
    } catch (error) {
      throw locate(error, index === undefined ? "message" : `messages[${index}]`);
    }
  };
  const countMessages = (messages: readonly Message[]): number => {
    if (!Array.isArray(messages)) throw invalidArgument("messages", "an array of messages", messages);
    let total = 0;
    for (let i = 0; i < messages.length; i++) total += countMessage(messages[i] as Message, i);
    return total;
  };
  const countValidTools = (tools: readonly ToolDefinition[]): number =>
    tools.length === 0 ? 0 : scale(countToolDefinitions(tools, tokenizer, rules.format.toolDefinitions, shared.tools));
  const replyPriming = scale(rules.format.replyPriming);

  return Object.freeze({
    model,
    encoding: tokenizer.encoding,
    modelInfo: info,
    safetyFactor: factor,
    replyPriming,
    countMessage: (message: Message) => countMessage(message),
    countMessages,
    countTools(tools: readonly ToolDefinition[]): number {
      validateToolDefinitions(tools);
      return countValidTools(tools);
    },
    countRequest(messages: readonly Message[], tools?: readonly ToolDefinition[]): number {
      if (tools !== undefined) validateToolDefinitions(tools);
      return countMessages(messages) + replyPriming + (tools?.length ? countValidTools(tools) : 0);
    },
    countText(text: string): number {
      if (typeof text !== "string") throw invalidArgument("text", "a string", text);
      return scale(tokenizer.count(text));
    },
    boundMessage(message: Message): number | undefined {
      if (boundRules === undefined) return undefined;
      try {
        return scale(countMessageTokens(message, boundRules));
      } catch (error) {
        throw locate(error, "message");
      }
    },
  });
}

/** Bytes of `text` in UTF-8 (a lone surrogate as the 3 bytes of U+FFFD, as an encoder writes it). */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // the pair: 2 code units, 4 bytes
      i++;
    } else bytes += 2;
  }
  return bytes;
}

function cachesFor(tokenizer: Tokenizer) {
  let entry = caches.get(tokenizer);
  if (!entry) {
    entry = { messages: new Map(), tools: new Map() };
    caches.set(tokenizer, entry);
  }
  return entry;
}

/** A user tokenizer's failures become TOKENIZER_FAILED, and its counts are checked. */
function guardTokenizer(tokenizer: Tokenizer): Tokenizer {
  const fail = (message: string, details: Record<string, unknown>) =>
    createError("TOKENIZER_FAILED", message, { module: "@amplifier-ts/tokens", ...details });
  return {
    encoding: tokenizer.encoding,
    count(text: string): number {
      let n: unknown;
      try {
        n = tokenizer.count(text);
      } catch (cause) {
        throw fail(`The tokenizer "${tokenizer.encoding}" threw`, { cause });
      }
      if (typeof n !== "number" || !Number.isInteger(n) || n < 0) {
        throw fail(`The tokenizer "${tokenizer.encoding}" returned a bad count`, {
          expected: "a non-negative integer from count(text)",
          given: n,
        });
      }
      return n;
    },
  };
}

/** Prefix an INVALID_MESSAGE path with where the message sits (`messages[3].content[0].text`). */
function locate(error: unknown, where: string): unknown {
  if (!isAmplifierError(error, "INVALID_MESSAGE")) return error;
  const inner = error.details.path;
  const path = inner ? `${where}.${inner}` : where;
  return new AmplifierError("INVALID_MESSAGE", "A message cannot be counted", { ...error.details, path });
}

function validateArguments(model: unknown, options: unknown): asserts options is TokenCounterOptions {
  if (typeof model !== "string" || model.trim() === "") throw invalidArgument("model", "a non-empty model name", model);
  if (typeof options !== "object" || options === null) throw invalidArgument("options", "an options object", options);
  const { tokenizer, safetyFactor, onWarning } = options as Record<string, unknown>;
  if (tokenizer !== undefined) {
    const t = tokenizer as Partial<Tokenizer> | null;
    if (typeof t !== "object" || t === null || typeof t.encoding !== "string" || typeof t.count !== "function") {
      throw invalidArgument("options.tokenizer", "a Tokenizer { encoding: string, count(text): number }", tokenizer);
    }
  }
  if (safetyFactor !== undefined && (typeof safetyFactor !== "number" || !Number.isFinite(safetyFactor) || safetyFactor <= 0)) {
    throw invalidArgument("options.safetyFactor", "a positive finite number", safetyFactor);
  }
  if (onWarning !== undefined && typeof onWarning !== "function") {
    throw invalidArgument("options.onWarning", "a function (message: string) => void", onWarning);
  }
}

function invalidArgument(path: string, expected: string, given: unknown): AmplifierError {
  return createError("INVALID_ARGUMENT", undefined, { module: "@amplifier-ts/tokens", path, expected, given });
}
