/**
 * Stored messages ⇄ OpenAI Chat Completions (`messages`, `tools` of POST /chat/completions).
 *
 * | stored                                               | Chat Completions                                     |
 * |------------------------------------------------------|------------------------------------------------------|
 * | system / developer (instructions and turn notes)      | the same role, in place (text only)                  |
 * | user: text, image / image_url blocks                  | user: string, or text and image_url parts            |
 * | assistant: text (thinking dropped: Chat has no field) | assistant: string, or text parts                     |
 * | assistant calls: `tool_calls` and/or `tool_use` blocks | `tool_calls` (tool_use input as JSON text), content null when there is no text |
 * | results: `tool` messages, `tool_result` blocks         | one `tool` message per call, right after the call, in stored order |
 * | images in a result; text of a result-carrying user message | a user message after the call's tool messages   |
 */
import { forEachContentPart, validateMessage, type ContentBlock, type Message, type ToolDefinition } from "@amplifier-ts/contracts";
import { adapterError } from "./adapter-errors.js";
import { imageBlockOf, imageUrlOf, type Where } from "./content-parts.js";
import { checkedTools, toChatTools, type ChatTool } from "./tool-definitions.js";
import { readToolTurns, type ToolResultPart, type TrailingPart } from "./tool-turns.js";
import { fromError, textOf } from "./text-parts.js";

export type ChatTextPart = { type: "text"; text: string };
export type ChatImagePart = { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" } };
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}
export type ChatMessage =
  | { role: "system" | "developer"; content: string | ChatTextPart[]; name?: string }
  | { role: "user"; content: string | (ChatTextPart | ChatImagePart)[]; name?: string }
  | { role: "assistant"; content: string | ChatTextPart[] | null; tool_calls?: ChatToolCall[]; name?: string; refusal?: string | null }
  | { role: "tool"; tool_call_id: string; content: string | ChatTextPart[] };

export interface OpenAIChatRequest {
  messages: ChatMessage[];
  tools?: ChatTool[];
}

/** A Chat Completions response, as far as the adapter reads it. */
export interface OpenAIChatCompletion {
  choices: { message: ChatMessage & { role: "assistant" } }[];
}

export interface ToRequestOptions {
  tools?: readonly ToolDefinition[];
}

export function toOpenAIChat(messages: readonly Message[], options: ToRequestOptions = {}): OpenAIChatRequest {
  const tools = checkedTools(options.tools, "openai-chat");
  const out: ChatMessage[] = [];
  for (const entry of readToolTurns(messages, "openai-chat")) {
    const where = (path = ""): Where => ({ adapter: "openai-chat", direction: "to", index: entry.index, path: `messages[${entry.index}]${path}` });
    const message = entry.message;
    if (entry.kind === "message") {
      out.push(chatMessage(message, where));
      continue;
    }
    const toolCalls: ChatToolCall[] = [];
    forEachContentPart(message, {
      toolCall(call) {
        const args = call.style === "openai" ? call.arguments : JSON.stringify(call.input ?? {});
        toolCalls.push({ id: call.id, type: "function", function: { name: call.name, arguments: args } });
      },
    });
    // tool_calls first in forEachContentPart's order is content order then tool_calls; the
    // contract's callsOf order is OpenAI's first: keep the pairing reader's order.
    const byId = new Map(toolCalls.map((c) => [c.id, c]));
    const text = assistantText(message.content, where);
    out.push({ role: "assistant", content: text === "" ? null : text, tool_calls: entry.calls.map((c) => byId.get(c.id)!), ...named(message) });
    const images: (ChatTextPart | ChatImagePart)[] = [];
    for (const result of entry.results) {
      out.push({ role: "tool", tool_call_id: result.id, content: resultContent(result, images) });
    }
    const after = [...images, ...trailingParts(entry.trailing)];
    if (after.length > 0) out.push({ role: "user", content: after });
  }
  return tools.length > 0 ? { messages: out, tools: toChatTools(tools) } : { messages: out };
}

/** A Chat request's messages, or a completion's first choice, as stored messages. */
export function fromOpenAIChat(input: readonly ChatMessage[] | OpenAIChatCompletion): Message[] {
  const list = Array.isArray(input) ? input : completionMessages(input as OpenAIChatCompletion);
  const callNames = new Map<string, string>();
  return list.map((raw, index): Message => {
    const where: Where = { adapter: "openai-chat", direction: "from", index, path: `messages[${index}]` };
    const m = raw as ChatMessage;
    let message: Message;
    switch (m?.role) {
      case "system":
      case "developer":
        message = { role: m.role, content: fromParts(m.content, where), ...named(m) };
        break;
      case "user":
        message = { role: "user", content: fromParts(m.content, where), ...named(m) };
        break;
      case "assistant": {
        const text = m.content === null || m.content === undefined ? (m.refusal ?? null) : fromParts(m.content, where);
        const calls = m.tool_calls?.length ? m.tool_calls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.function.name, arguments: c.function.arguments } })) : undefined;
        for (const call of calls ?? []) callNames.set(call.id, call.function.name);
        message = { role: "assistant", content: calls ? text : (text ?? ""), ...(calls ? { tool_calls: calls } : {}), ...named(m) };
        break;
      }
      case "tool": {
        const name = callNames.get(m.tool_call_id);
        message = { role: "tool", tool_call_id: m.tool_call_id, content: fromParts(m.content, where), ...(name ? { name } : {}) };
        break;
      }
      default:
        throw adapterError("INVALID_INPUT", { ...where, rule: "a Chat message has role system, developer, user, assistant or tool", expected: "a Chat Completions message", given: (raw as { role?: unknown } | null)?.role });
    }
    try {
      return validateMessage(message, where.path);
    } catch (error) {
      throw fromError(error, where);
    }
  });
}

function completionMessages(completion: OpenAIChatCompletion): ChatMessage[] {
  const message = completion?.choices?.[0]?.message;
  if (!message) throw adapterError("INVALID_INPUT", { adapter: "openai-chat", direction: "from", index: 0, path: "choices[0].message", rule: "a completion has a first choice with a message", expected: "{ choices: [{ message }] }", given: completion });
  return [message];
}

function chatMessage(message: Message, where: (path?: string) => Where): ChatMessage {
  switch (message.role) {
    case "system":
    case "developer":
      return { role: message.role, content: typeof message.content === "string" ? message.content : textOnly(message.content ?? [], where, "a system/developer message carries text only"), ...named(message) };
    case "assistant":
      return { role: "assistant", content: assistantText(message.content, where), ...named(message) };
    case "user": {
      if (typeof message.content === "string" || message.content === null) return { role: "user", content: message.content ?? "", ...named(message) };
      const parts: (ChatTextPart | ChatImagePart)[] = [];
      message.content.forEach((block, b) => {
        if (block.type === "text") parts.push({ type: "text", text: block.text });
        else if (block.type === "image" || block.type === "image_url") parts.push({ type: "image_url", image_url: imageUrlOf(block, where(`.content[${b}]`)) });
        else throw unsupported(where(`.content[${b}]`), block, "a user message carries text and images");
      });
      return { role: "user", content: parts.length > 0 ? parts : "", ...named(message) };
    }
    default:
      // A tool message is always a result; readToolTurns has placed or refused it.
      throw unsupported(where(), message.role, "a tool message follows its call");
  }
}

/** An assistant message's text; thinking is dropped (Chat has no place for it), calls are elsewhere. */
function assistantText(content: Message["content"], where: (path?: string) => Where): string {
  if (typeof content === "string") return content;
  if (content === null) return "";
  const texts: string[] = [];
  content.forEach((block, b) => {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "image" || block.type === "image_url") throw unsupported(where(`.content[${b}]`), block.type, "an assistant message carries no images in Chat Completions");
  });
  return texts.join("");
}

function resultContent(result: ToolResultPart, images: (ChatTextPart | ChatImagePart)[]): string | ChatTextPart[] {
  if (typeof result.content === "string") return result.content;
  const texts: ChatTextPart[] = [];
  let hasImage = false;
  result.content.forEach((block, b) => {
    if (block.type === "text") texts.push({ type: "text", text: block.text });
    else {
      if (!hasImage) images.push({ type: "text", text: `Images returned by tool call ${result.id}:` });
      hasImage = true;
      images.push({ type: "image_url", image_url: imageUrlOf(block, { adapter: "openai-chat", direction: "to", index: result.index, path: `messages[${result.index}].content[${b}]` }) });
    }
  });
  return texts.length > 0 ? texts : "";
}

function trailingParts(trailing: readonly TrailingPart[]): (ChatTextPart | ChatImagePart)[] {
  return trailing.map(({ index, block }, k) => {
    const where: Where = { adapter: "openai-chat", direction: "to", index, path: `messages[${index}].content` };
    if (block.type === "text") return { type: "text", text: block.text };
    if (block.type === "image" || block.type === "image_url") return { type: "image_url", image_url: imageUrlOf(block, where) };
    throw unsupported(where, block.type, `a user message beside tool results carries text and images (part ${k})`);
  });
}

function textOnly(blocks: readonly ContentBlock[], where: (path?: string) => Where, rule: string): string {
  return blocks
    .map((block, b) => {
      if (block.type !== "text") throw unsupported(where(`.content[${b}]`), block.type, rule);
      return block.text;
    })
    .join("");
}

function fromParts(content: string | readonly (ChatTextPart | ChatImagePart | { type: string })[], where: Where): string | ContentBlock[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw adapterError("INVALID_INPUT", { ...where, path: `${where.path}.content`, rule: "content is a string or an array of parts", given: content });
  return content.map((part, p): ContentBlock => {
    const text = textOf(part);
    if (text !== undefined) return { type: "text", text };
    if (part.type === "image_url") {
      const image = (part as ChatImagePart).image_url;
      return imageBlockOf(image.url, image.detail);
    }
    throw adapterError("UNKNOWN_BLOCK", { ...where, path: `${where.path}.content[${p}]`, rule: "Chat parts read back are text, refusal and image_url", expected: "text | refusal | image_url", given: part.type });
  });
}

function named(message: { name?: string }): { name?: string } {
  return typeof message.name === "string" && message.name !== "" ? { name: message.name } : {};
}

function unsupported(where: Where, given: unknown, rule: string) {
  return adapterError("UNSUPPORTED_CONTENT", { ...where, rule, given });
}
