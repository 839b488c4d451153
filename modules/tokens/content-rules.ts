/**
 * The tokens of one message, before the safety factor. Every rule is listed in
 * contracts/TOKENS.md; in short:
 *
 * | part of the message            | tokens                                                |
 * |--------------------------------|-------------------------------------------------------|
 * | framing + role                 | tokensPerMessage + tokens(role)                       |
 * | name                           | tokens(name) + tokensPerName                          |
 * | string content                 | tokens(content); null content: 0                      |
 * | block list                     | Σ blocks + tokensPerExtraBlock × (blocks − 1)         |
 * | text block                     | tokens(text)                                          |
 * | image / image_url block        | image-tokens.ts, by the model family's rule           |
 * | tool_use block, each tool_call | tokensPerToolCall + tokens(name) + tokens(arguments JSON) |
 * | tool message, tool_result block| tokensPerToolResult + its content                     |
 * | thinking block                 | tokens(thinking) (the signature is not counted)       |
 * | redacted_thinking block        | ⌈data.length / 4⌉ (opaque data: a length estimate)    |
 * | compaction block, Anthropic    | tokens(data.content): the summary the model reads     |
 * | compaction block, OpenAI       | ⌈data.encrypted_content.length / 4⌉ (opaque: as redacted_thinking) |
 * | tool_call_id, tool_use_id, ids | 0 — the provider does not render them                 |
 * | metadata                       | never: it is not sent to the provider                 |
 *
 * Malformed input throws INVALID_MESSAGE with `path` relative to the message
 * (`content[2].text`); the counter prefixes it with the message's index.
 */
import { createError } from "@amplifier-ts/contracts";
import type { ContentBlock, Message, TextBlock, ImageBlock } from "@amplifier-ts/contracts";
import type { Tokenizer } from "@amplifier-ts/contracts";
import type { ChatFormat } from "./chat-format.js";
import { imageTokens, type ImageDetail, type ImagePricing } from "./image-tokens.js";

export interface ContentRules {
  readonly tokenizer: Tokenizer;
  readonly format: ChatFormat;
  readonly images: ImagePricing;
}

/** Characters of redacted_thinking data per token (the data is opaque; this is an estimate). */
export const REDACTED_THINKING_CHARS_PER_TOKEN = 4;

const ROLES = new Set(["system", "developer", "user", "assistant", "tool"]);
const DETAILS = new Set(["auto", "low", "high"]);

/** Tokens of one message including its framing; no safety factor, no cache. */
export function countMessageTokens(message: Message, rules: ContentRules): number {
  if (!isRecord(message)) fail("", "a message object { role, content, … }", message);
  const { tokenizer, format } = rules;
  const { role, name, content, tool_calls: toolCalls } = message;
  if (typeof role !== "string" || !ROLES.has(role)) fail("role", "one of system, developer, user, assistant, tool", role);
  let total = format.tokensPerMessage + tokenizer.count(role);
  if (name !== undefined) {
    if (typeof name !== "string") fail("name", "a string", name);
    total += tokenizer.count(name) + format.tokensPerName;
  }
  if (typeof content === "string") total += tokenizer.count(content);
  else if (Array.isArray(content)) total += countBlocks(content, rules, "content");
  else if (content !== null) fail("content", "a string, an array of content blocks, or null", content);
  if (toolCalls !== undefined) {
    if (!Array.isArray(toolCalls)) fail("tool_calls", "an array of tool calls", toolCalls);
    toolCalls.forEach((call, i) => {
      const fn: unknown = isRecord(call) ? call.function : undefined;
      if (!isRecord(fn) || typeof fn.name !== "string" || typeof fn.arguments !== "string") {
        fail(`tool_calls[${i}].function`, "{ name: string, arguments: string }", fn ?? call);
      }
      total += format.tokensPerToolCall + tokenizer.count(fn.name) + tokenizer.count(fn.arguments);
    });
  }
  if (role === "tool") total += format.tokensPerToolResult;
  return total;
}

function countBlocks(blocks: readonly unknown[], rules: ContentRules, path: string): number {
  let total = blocks.length > 1 ? rules.format.tokensPerExtraBlock * (blocks.length - 1) : 0;
  blocks.forEach((block, i) => {
    total += countBlock(block, rules, `${path}[${i}]`);
  });
  return total;
}

function countBlock(block: unknown, rules: ContentRules, path: string): number {
  if (!isRecord(block)) fail(path, "a content block object with a type", block);
  const { tokenizer, format } = rules;
  const b = block as unknown as ContentBlock;
  switch (b.type) {
    case "text":
      return tokenizer.count(requireString(b, "text", path));
    case "image":
      return imageTokens(rules.images, b.width, b.height, "auto");
    case "image_url": {
      if (!isRecord(b.image_url)) fail(`${path}.image_url`, "{ url, detail? }", b.image_url);
      const detail = b.image_url.detail ?? "auto";
      if (!DETAILS.has(detail)) fail(`${path}.image_url.detail`, '"auto", "low" or "high"', detail);
      return imageTokens(rules.images, b.width, b.height, detail as ImageDetail);
    }
    case "tool_use": {
      const name = requireString(b, "name", path);
      return format.tokensPerToolCall + tokenizer.count(name) + tokenizer.count(inputJson(b.input, `${path}.input`));
    }
    case "tool_result":
      return format.tokensPerToolResult + countToolResultContent(b.content, rules, `${path}.content`);
    case "thinking":
      return tokenizer.count(requireString(b, "thinking", path));
    case "redacted_thinking":
      return Math.ceil(requireString(b, "data", path).length / REDACTED_THINKING_CHARS_PER_TOKEN);
    case "compaction":
      return compactionTokens(b, rules, path);
    default:
      return fail(
        `${path}.type`,
        "one of text, image, image_url, tool_use, tool_result, thinking, redacted_thinking, compaction",
        (b as { type?: unknown }).type,
      );
  }
}

/**
 * A provider's compaction state, counted as that provider bills it on the next request: Anthropic
 * renders the block's summary (`content`, plain text; null when the compaction failed) to the
 * model, so its tokens are counted; OpenAI's `encrypted_content` is opaque — the server decrypts it
 * into tokens nobody outside can count — so its length is estimated like redacted_thinking's data
 * (base64 of a ciphertext is ≈ 4/3 of the plaintext's bytes, so length / 4 ≈ bytes / 3 tokens: an
 * over-estimate of a text's ≈ bytes / 4, which keeps the budget safe; billed usage calibrates it).
 */
function compactionTokens(block: Extract<ContentBlock, { type: "compaction" }>, rules: ContentRules, path: string): number {
  const data: unknown = block.data;
  if (!isRecord(data) || data.type !== "compaction") fail(`${path}.data`, 'the provider\'s compaction block or item ({ type: "compaction", … })', data);
  if (block.provider === "anthropic") {
    if (data.content === null || data.content === undefined) return 0;
    if (typeof data.content !== "string") fail(`${path}.data.content`, "a string or null", data.content);
    return rules.tokenizer.count(data.content);
  }
  if (block.provider === "openai") {
    if (typeof data.encrypted_content !== "string") fail(`${path}.data.encrypted_content`, "a string", data.encrypted_content);
    return Math.ceil(data.encrypted_content.length / REDACTED_THINKING_CHARS_PER_TOKEN);
  }
  return fail(`${path}.provider`, '"anthropic" or "openai"', (block as { provider?: unknown }).provider);
}

function countToolResultContent(content: unknown, rules: ContentRules, path: string): number {
  if (content === undefined) return 0;
  if (typeof content === "string") return rules.tokenizer.count(content);
  if (!Array.isArray(content)) fail(path, "a string or an array of text and image blocks", content);
  content.forEach((block: unknown, i) => {
    const type = isRecord(block) ? block.type : undefined;
    if (type !== "text" && type !== "image") fail(`${path}[${i}].type`, '"text" or "image"', type);
  });
  return countBlocks(content as (TextBlock | ImageBlock)[], rules, path);
}

function inputJson(input: unknown, path: string): string {
  if (input !== undefined && !isRecord(input)) fail(path, "a JSON object", input);
  try {
    return JSON.stringify(input ?? {});
  } catch (cause) {
    throw createError("INVALID_MESSAGE", "A tool_use input cannot be serialised", {
      module: "@amplifier-ts/tokens",
      path,
      expected: "a JSON-serialisable object",
      cause,
    });
  }
}

function requireString(block: object, key: string, path: string): string {
  const value = (block as Record<string, unknown>)[key];
  if (typeof value !== "string") fail(`${path}.${key}`, "a string", value);
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(path: string, expected: string, given: unknown): never {
  throw createError("INVALID_MESSAGE", "A message cannot be counted", { module: "@amplifier-ts/tokens", path, expected, given });
}
