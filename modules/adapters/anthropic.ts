/**
 * Stored messages ⇄ Anthropic Messages (`system`, `messages`, `tools` of POST /v1/messages).
 *
 * | stored                                             | Anthropic                                                    |
 * |----------------------------------------------------|--------------------------------------------------------------|
 * | instructions (system/developer, not turn notes)     | `system` text blocks, one per instruction, in stored order   |
 * | turn notes (`metadata.scope: "turn"`)               | user-side text in place, so the cached prefix does not move  |
 * | user: text, image / image_url blocks                | user: text and image blocks (data URLs become base64 sources) |
 * | assistant: text, thinking + signature, redacted_thinking | the same blocks; thinking without a signature is dropped (the API refuses it) |
 * | assistant: `compaction` block of provider "anthropic" | its `data` verbatim (the API's compaction block); everything before the last one is left out — the API drops it (compact_20260112) — instructions stay in `system`; another provider's compaction block is dropped (only its provider reads it) |
 * | calls: `tool_use` blocks and/or `tool_calls`         | `tool_use` blocks (tool_calls' JSON arguments parsed)        |
 * | results: `tool` messages, `tool_result` blocks       | one user message right after the call: its `tool_result` blocks first, in stored order, then the carriers' other text and images |
 * | consecutive messages of one role                    | merged into one message (the API alternates roles)           |
 * | a conversation that starts with the assistant       | a user message "(conversation start)" put first              |
 *
 * With `cache: true`, `cache_control: { type: "ephemeral" }` marks the stable prefix: the last
 * system block, the last block of the user message before the final message (the previous
 * request's end), and the last cacheable block of the final message — at most 3 of the 4 allowed.
 */
import { forEachContentPart, isInstruction, validateMessage, type ContentBlock, type Message, type ToolDefinition } from "@amplifier-ts/contracts";
import { adapterError } from "./adapter-errors.js";
import { imageSourceOf, imageUrlOf, isBlank, parseArguments, type Where } from "./content-parts.js";
import { fromError } from "./text-parts.js";
import { checkedTools, toAnthropicTools, type AnthropicTool } from "./tool-definitions.js";
import { readToolTurns } from "./tool-turns.js";

type CacheControl = { type: "ephemeral" };
export type AnthropicImageSource = { type: "base64"; media_type: string; data: string } | { type: "url"; url: string };
export type AnthropicTextBlock = { type: "text"; text: string; cache_control?: CacheControl };
export type AnthropicImageBlock = { type: "image"; source: AnthropicImageSource; cache_control?: CacheControl };
export type AnthropicToolUseBlock = { type: "tool_use"; id: string; name: string; input: Record<string, unknown>; cache_control?: CacheControl };
export type AnthropicToolResultBlock = {
  type: "tool_result";
  tool_use_id: string;
  content?: string | (AnthropicTextBlock | AnthropicImageBlock)[];
  is_error?: boolean;
  cache_control?: CacheControl;
};
export type AnthropicThinkingBlock = { type: "thinking"; thinking: string; signature: string };
export type AnthropicRedactedThinkingBlock = { type: "redacted_thinking"; data: string };
/** A compaction block (`compact_20260112`): the summary, or null when the compaction failed; other keys kept as they came. */
export type AnthropicCompactionBlock = { type: "compaction"; content: string | null; cache_control?: CacheControl; [key: string]: unknown };
export type AnthropicBlock = AnthropicCompactionBlock | AnthropicTextBlock | AnthropicImageBlock | AnthropicToolUseBlock | AnthropicToolResultBlock | AnthropicThinkingBlock | AnthropicRedactedThinkingBlock;
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: string | AnthropicBlock[];
}
export interface AnthropicRequest {
  system?: AnthropicTextBlock[];
  messages: AnthropicMessage[];
  tools?: AnthropicTool[];
}
/** A Messages API response, as far as the adapter reads it. */
export interface AnthropicResponse {
  type: "message";
  role: "assistant";
  content: AnthropicBlock[];
}

export interface ToAnthropicOptions {
  tools?: readonly ToolDefinition[];
  /** Put cache_control breakpoints on the stable prefix (see above). */
  cache?: boolean;
}

export const CONVERSATION_START = "(conversation start)";

export function toAnthropic(messages: readonly Message[], options: ToAnthropicOptions = {}): AnthropicRequest {
  const tools = checkedTools(options.tools, "anthropic");
  const system: AnthropicTextBlock[] = [];
  const turns: { role: "user" | "assistant"; content: AnthropicBlock[] }[] = [];
  const push = (role: "user" | "assistant", content: AnthropicBlock[]) => {
    if (content.length === 0) return;
    const last = turns[turns.length - 1];
    if (last?.role === role) last.content.push(...content);
    else turns.push({ role, content });
  };
  for (const entry of readToolTurns(messages, "anthropic")) {
    const where = (path = ""): Where => ({ adapter: "anthropic", direction: "to", index: entry.index, path: `messages[${entry.index}]${path}` });
    const message = entry.message;
    if (entry.kind === "message") {
      if (isInstruction(message)) system.push(...textBlocks(message, where, "an instruction carries text only (it goes to system)"));
      else if (message.role === "system" || message.role === "developer") push("user", textBlocks(message, where, "a turn note carries text only"));
      else if (message.role === "user") push("user", userBlocks(message.content, where));
      else push("assistant", assistantBlocks(message, where));
      continue;
    }
    push("assistant", assistantBlocks(message, where));
    const results: AnthropicBlock[] = entry.results.map((result) => {
      const at: Where = { adapter: "anthropic", direction: "to", index: result.index, path: `messages[${result.index}]` };
      const content = typeof result.content === "string" ? result.content : result.content.flatMap((block, b) => mediaBlock(block, { ...at, path: `${at.path}.content[${b}]` }));
      const block: AnthropicToolResultBlock = { type: "tool_result", tool_use_id: result.id };
      if (content !== "" && !(Array.isArray(content) && content.length === 0)) block.content = content;
      if (result.isError) block.is_error = true;
      return block;
    });
    const trailing = entry.trailing.flatMap(({ index, block }) => mediaBlock(block, { adapter: "anthropic", direction: "to", index, path: `messages[${index}].content` }));
    // A new user message even after a user turn would merge: the results must open it.
    turns.push({ role: "user", content: [...results, ...trailing] });
  }
  if (turns[0]?.role === "assistant") turns.unshift({ role: "user", content: [{ type: "text", text: CONVERSATION_START }] });
  if (turns.length === 0) {
    throw adapterError("INVALID_INPUT", { adapter: "anthropic", direction: "to", index: messages.length, path: "messages", rule: "an Anthropic request has at least one user or assistant message (instructions alone go to system)", expected: "a conversation message", given: messages.length });
  }
  dropBeforeCompaction(turns);
  trimFinalAssistant(turns);
  if (options.cache) markCacheBreakpoints(system, turns);
  const request: AnthropicRequest = { messages: turns };
  if (system.length > 0) request.system = system;
  if (tools.length > 0) request.tools = toAnthropicTools(tools);
  return request;
}

/** A request's system and messages, a response, or a list of messages, as stored messages. */
export function fromAnthropic(input: { system?: string | AnthropicTextBlock[]; messages: readonly AnthropicMessage[] } | AnthropicResponse | readonly AnthropicMessage[]): Message[] {
  const out: Message[] = [];
  let system: string | AnthropicTextBlock[] | undefined;
  let list: readonly AnthropicMessage[];
  if (Array.isArray(input)) list = input;
  else if ((input as AnthropicResponse)?.type === "message") list = [{ role: "assistant", content: (input as AnthropicResponse).content }];
  else {
    const request = input as { system?: string | AnthropicTextBlock[]; messages: readonly AnthropicMessage[] };
    system = request?.system;
    list = request?.messages;
    if (!Array.isArray(list)) throw adapterError("INVALID_INPUT", { adapter: "anthropic", direction: "from", index: -1, path: "messages", rule: "the input is a request ({ system?, messages }), a response (type \"message\") or a list of messages", given: input });
  }
  if (typeof system === "string") out.push({ role: "system", content: system });
  else if (Array.isArray(system)) for (const block of system) out.push({ role: "system", content: block.text });
  list.forEach((message, index) => {
    const where: Where = { adapter: "anthropic", direction: "from", index, path: `messages[${index}]` };
    if (message?.role !== "user" && message?.role !== "assistant") {
      throw adapterError("INVALID_INPUT", { ...where, rule: "an Anthropic message has role user or assistant", given: message?.role });
    }
    const content = typeof message.content === "string" ? message.content : message.content.map((block: AnthropicBlock, b: number) => storedBlock(block, message.role, { ...where, path: `${where.path}.content[${b}]` }));
    try {
      out.push(validateMessage({ role: message.role, content }, where.path));
    } catch (error) {
      throw fromError(error, where);
    }
  });
  return out;
}

function storedBlock(block: AnthropicBlock, role: "user" | "assistant", where: Where): ContentBlock {
  const allowed = role === "user" ? USER_BLOCKS : ASSISTANT_BLOCKS;
  if (!allowed.has(block?.type)) {
    throw adapterError("UNKNOWN_BLOCK", { ...where, rule: `an Anthropic ${role} block read back is one of ${[...allowed].join(", ")}`, expected: [...allowed].join(" | "), given: block?.type });
  }
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      return { type: "image", source: block.source.type === "base64" ? { type: "base64", media_type: block.source.media_type, data: block.source.data } : { type: "url", url: block.source.url } };
    case "tool_use":
      return { type: "tool_use", id: block.id, name: block.name, input: block.input ?? {} };
    case "tool_result": {
      const out: ContentBlock = { type: "tool_result", tool_use_id: block.tool_use_id };
      if (block.content !== undefined) out.content = typeof block.content === "string" ? block.content : block.content.map((inner) => storedBlock(inner, "user", where) as never);
      if (block.is_error) out.is_error = true;
      return out;
    }
    case "thinking":
      return { type: "thinking", thinking: block.thinking, signature: block.signature };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
    case "compaction": {
      if (block.content !== null && typeof block.content !== "string") {
        throw adapterError("INVALID_INPUT", { ...where, rule: "an Anthropic compaction block carries its summary as content (a string, or null when the compaction failed)", expected: "string | null", given: block.content });
      }
      // Verbatim: every key in its order, so it goes back byte-identical (a JSON copy detaches it from the caller's object).
      return { type: "compaction", provider: "anthropic", data: JSON.parse(JSON.stringify(block)) as AnthropicCompactionBlock };
    }
  }
}

const USER_BLOCKS = new Set(["text", "image", "tool_result"]);
const ASSISTANT_BLOCKS = new Set(["text", "thinking", "redacted_thinking", "tool_use", "compaction"]);

function textBlocks(message: Message, where: (path?: string) => Where, rule: string): AnthropicTextBlock[] {
  if (typeof message.content === "string") return isBlank(message.content) ? [] : [{ type: "text", text: message.content }];
  return (message.content ?? []).flatMap((block, b): AnthropicTextBlock[] => {
    if (block.type !== "text") throw adapterError("UNSUPPORTED_CONTENT", { ...where(`.content[${b}]`), rule, given: block.type });
    return isBlank(block.text) ? [] : [{ type: "text", text: block.text }];
  });
}

function userBlocks(content: Message["content"], where: (path?: string) => Where): AnthropicBlock[] {
  if (typeof content === "string") return isBlank(content) ? [] : [{ type: "text", text: content }];
  return (content ?? []).flatMap((block, b) => {
    if (block.type === "text" || block.type === "image" || block.type === "image_url") return mediaBlock(block, where(`.content[${b}]`));
    throw adapterError("UNSUPPORTED_CONTENT", { ...where(`.content[${b}]`), rule: "a user message carries text, images and (after a call) tool results", given: block.type });
  });
}

/** Text (blank dropped) or an image block, for user-side content. */
function mediaBlock(block: ContentBlock, where: Where): (AnthropicTextBlock | AnthropicImageBlock)[] {
  if (block.type === "text") return isBlank(block.text) ? [] : [{ type: "text", text: block.text }];
  if (block.type === "image" && block.source?.type === "base64" && block.source.data) {
    return [{ type: "image", source: { type: "base64", media_type: block.source.media_type ?? "image/png", data: block.source.data } }];
  }
  if (block.type === "image" || block.type === "image_url") return [{ type: "image", source: imageSourceOf(imageUrlOf(block, where).url) }];
  throw adapterError("UNSUPPORTED_CONTENT", { ...where, rule: "user-side content beside tool results is text and images", given: block.type });
}

function assistantBlocks(message: Message, where: (path?: string) => Where): AnthropicBlock[] {
  const out: AnthropicBlock[] = [];
  if (typeof message.content === "string") {
    if (!isBlank(message.content)) out.push({ type: "text", text: message.content });
  } else {
    (message.content ?? []).forEach((block, b) => {
      switch (block.type) {
        case "text":
          if (!isBlank(block.text)) out.push({ type: "text", text: block.text });
          break;
        case "thinking":
          if (block.signature) out.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
          break;
        case "redacted_thinking":
          out.push({ type: "redacted_thinking", data: block.data });
          break;
        case "tool_use":
          out.push({ type: "tool_use", id: block.id, name: block.name, input: block.input });
          break;
        case "compaction":
          if (block.provider === "anthropic") out.push(compactionOf(block.data, where(`.content[${b}].data`)));
          break;
        default:
          throw adapterError("UNSUPPORTED_CONTENT", { ...where(`.content[${b}]`), rule: "an assistant message carries text, thinking, compaction and tool calls", given: block.type });
      }
    });
  }
  forEachContentPart(message, {
    toolCall(call) {
      if (call.style === "openai") out.push({ type: "tool_use", id: call.id, name: call.name, input: parseArguments(call.arguments, where(".tool_calls")) });
    },
  });
  return out;
}

/** A stored Anthropic compaction block's data, copied key by key (the stored history is never changed). */
function compactionOf(data: Record<string, unknown>, where: Where): AnthropicCompactionBlock {
  if (data?.type !== "compaction" || (data.content !== null && typeof data.content !== "string")) {
    throw adapterError("INVALID_INPUT", { ...where, rule: "an Anthropic compaction block is { type: \"compaction\", content: string | null } as the API returned it", expected: '{ type: "compaction", content: string | null }', given: data });
  }
  return JSON.parse(JSON.stringify(data)) as AnthropicCompactionBlock;
}

/**
 * The API drops every message block before the last compaction block (compact_20260112); the
 * request leaves them out, so what is sent — and counted — is what the model reads. A request then
 * opening with the assistant gets the "(conversation start)" user message, as any other would.
 */
function dropBeforeCompaction(turns: { role: "user" | "assistant"; content: AnthropicBlock[] }[]): void {
  for (let t = turns.length - 1; t >= 0; t--) {
    const content = turns[t]!.content;
    const b = content.map((block) => block.type).lastIndexOf("compaction");
    if (b < 0) continue;
    content.splice(0, b);
    turns.splice(0, t);
    turns.unshift({ role: "user", content: [{ type: "text", text: CONVERSATION_START }] });
    return;
  }
}

/** The API refuses a final assistant message (a prefill) that ends in whitespace. */
function trimFinalAssistant(turns: { role: string; content: AnthropicBlock[] }[]): void {
  const last = turns[turns.length - 1];
  if (last?.role !== "assistant") return;
  const block = last.content[last.content.length - 1];
  if (block?.type === "text") block.text = block.text.trimEnd();
}

function markCacheBreakpoints(system: AnthropicTextBlock[], turns: { role: string; content: AnthropicBlock[] }[]): void {
  const mark = (block: AnthropicBlock | undefined) => {
    if (block && block.type !== "thinking" && block.type !== "redacted_thinking") block.cache_control = { type: "ephemeral" };
  };
  mark(system[system.length - 1]);
  const lastCacheable = (content: AnthropicBlock[]) => [...content].reverse().find((b) => b.type !== "thinking" && b.type !== "redacted_thinking");
  const final = turns.length - 1;
  for (let t = final - 1; t >= 0; t--) {
    if (turns[t]!.role === "user") {
      mark(lastCacheable(turns[t]!.content));
      break;
    }
  }
  mark(lastCacheable(turns[final]!.content));
}
