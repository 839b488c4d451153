/**
 * Stored messages ⇄ LangChain.js messages (`BaseMessage[]` of @langchain/core ≥ 0.3 / 1.x), read
 * by duck typing: this package depends on no LangChain package, and a message is recognised by
 * its `type` (`_getType()` / `getType()` on older classes) — never by `instanceof`, so two copies
 * of @langchain/core in one tree both work.
 *
 * | LangChain                                            | stored                                                  |
 * |------------------------------------------------------|---------------------------------------------------------|
 * | SystemMessage (`system`), `developer`                 | system / developer                                      |
 * | HumanMessage (`human`)                                | user                                                    |
 * | AIMessage (`ai`): content + `tool_calls[{ id, name, args }]` | assistant with OpenAI-style `tool_calls` (args as JSON text); `tool_use` blocks in the content that repeat a tool call are not counted twice |
 * | ToolMessage (`tool`): `tool_call_id`, content         | tool (name: the message's, else the call's)             |
 * | ChatMessage (`generic`) with a role                   | that role                                               |
 * | message-like plain objects: `{ role: "user" | "assistant" | "system" | "tool", content, tool_calls?, tool_call_id? }`, `{ type: "human", content }` | as their class would be |
 * | content blocks: text, image_url, image (url / base64 / Anthropic source), thinking, reasoning | text, image_url, image, thinking |
 * | assistant `compaction` block: ours (`provider`, `data`), or Anthropic's own (`content`, as ChatAnthropic returns it) | the opaque compaction block (contracts/ADAPTERS.md) |
 * | any other content block (a provider's own)            | a text block holding its JSON, so it is counted (conservatively) and never silently lost |
 *
 * toLangChain returns message-like plain objects (`{ role, content, tool_calls, tool_call_id,
 * name }`) that LangChain's `coerceMessageLikeToMessage` turns into its classes; a caller that
 * holds the classes may construct them from the same fields.
 */
import { forEachContentPart, validateMessage, type ContentBlock, type Message, type ToolCall } from "@amplifier-ts/contracts";
import { adapterError } from "./adapter-errors.js";
import { parseArguments, type Where } from "./content-parts.js";
import { fromError } from "./text-parts.js";

/** The fields of a LangChain message this adapter reads (BaseMessage and its subclasses have them). */
export interface LangChainMessageLike {
  readonly type?: string;
  readonly content: string | readonly Record<string, unknown>[];
  readonly name?: string;
  readonly id?: string;
  readonly role?: string;
  readonly tool_calls?: readonly { readonly id?: string; readonly name: string; readonly args: Record<string, unknown> }[];
  readonly tool_call_id?: string;
  _getType?(): string;
  getType?(): string;
}

/** A message-like plain object LangChain coerces into its classes (HumanMessage, AIMessage, ToolMessage, SystemMessage). */
export interface LangChainMessageFields {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content: string | Record<string, unknown>[];
  name?: string;
  tool_calls?: { id: string; name: string; args: Record<string, unknown>; type: "tool_call" }[];
  tool_call_id?: string;
}

const ROLES: Record<string, Message["role"]> = {
  system: "system",
  developer: "developer",
  human: "user",
  user: "user",
  ai: "assistant",
  assistant: "assistant",
  tool: "tool",
};

/** The LangChain type of a message-like value (`human`, `ai`, `system`, `tool`, …); undefined when it is not one. */
export function langChainTypeOf(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const m = value as LangChainMessageLike & { lc_namespace?: unknown };
  if (typeof m._getType === "function") return m._getType();
  if (typeof m.getType === "function") return m.getType();
  if (Array.isArray(m.lc_namespace) && typeof m.type === "string") return m.type;
  return undefined;
}

export function fromLangChain(messages: readonly LangChainMessageLike[]): Message[] {
  if (!Array.isArray(messages)) throw adapterError("INVALID_INPUT", { adapter: "langchain", direction: "from", index: -1, path: "messages", rule: "the input is an array of LangChain messages", given: messages });
  const names = new Map<string, string>();
  return messages.map((m, index) => fromLangChainMessage(m, index, names));
}

/**
 * One LangChain message as a stored message. `names` (call id → tool name) is read for a
 * ToolMessage without a name and filled from an AIMessage's calls; pass the same map over a
 * conversation to convert it message by message.
 */
export function fromLangChainMessage(m: LangChainMessageLike, index: number, names: Map<string, string> = new Map()): Message {
  const where: Where = { adapter: "langchain", direction: "from", index, path: `messages[${index}]` };
  // A class instance, a serialised `{ type: "human", … }`, or a message-like `{ role: "user", … }` (LangChain coerces all three).
  const type = langChainTypeOf(m) ?? (m as { type?: unknown } | null)?.type ?? (m as { role?: unknown } | null)?.role;
  const role = typeof type === "string" ? (type === "generic" || type === "chat" ? ROLES[String(m.role)] : ROLES[type]) : undefined;
  if (!role) {
    throw adapterError("INVALID_INPUT", { ...where, rule: "a LangChain message is a system, developer, human, ai or tool message (or a ChatMessage of one of those roles)", expected: "BaseMessage", given: type ?? m });
  }
  const callIds = new Set<string>();
  const calls: ToolCall[] = [];
  if (role === "assistant" && Array.isArray(m.tool_calls)) {
    m.tool_calls.forEach((raw, c) => {
      // An OpenAI-style call in a message-like object: { id, function: { name, arguments } }.
      const fn = (raw as { function?: { name: string; arguments: string } }).function;
      const call = fn ? { id: raw.id, name: fn.name, args: parseArguments(fn.arguments, { ...where, path: `${where.path}.tool_calls[${c}].function.arguments` }) } : raw;
      if (typeof call?.id !== "string" || call.id === "") {
        throw adapterError("INVALID_INPUT", { ...where, path: `${where.path}.tool_calls[${c}].id`, rule: "a tool call sent back to a model carries its id (its ToolMessage answers it by tool_call_id)", expected: "a non-empty string", given: call?.id });
      }
      callIds.add(call.id);
      names.set(call.id, call.name);
      calls.push({ id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) } });
    });
  }
  let content: Message["content"] = typeof m.content === "string" ? m.content : [];
  if (Array.isArray(m.content)) {
    const blocks: ContentBlock[] = [];
    m.content.forEach((block, b) => {
      const stored = storedBlock(block, role, callIds, calls, names, { ...where, path: `${where.path}.content[${b}]` });
      if (stored) blocks.push(stored);
    });
    content = blocks;
  } else if (typeof m.content !== "string") {
    throw adapterError("INVALID_INPUT", { ...where, path: `${where.path}.content`, rule: "content is a string or an array of content blocks", given: m.content });
  }
  if (role === "assistant" && calls.length > 0 && Array.isArray(content) && content.length === 0) content = null;
  const message: Message = { role, content };
  if (calls.length > 0) message.tool_calls = calls;
  if (role === "tool") {
    if (typeof m.tool_call_id !== "string" || m.tool_call_id === "") {
      throw adapterError("INVALID_INPUT", { ...where, path: `${where.path}.tool_call_id`, rule: "a ToolMessage names the call it answers", expected: "a non-empty string", given: m.tool_call_id });
    }
    message.tool_call_id = m.tool_call_id;
    const name = typeof m.name === "string" && m.name !== "" ? m.name : names.get(m.tool_call_id);
    if (name) message.name = name;
  } else if (typeof m.name === "string" && m.name !== "") message.name = m.name;
  try {
    return validateMessage(message, where.path);
  } catch (error) {
    throw fromError(error, where);
  }
}

export function toLangChain(messages: readonly Message[]): LangChainMessageFields[] {
  return messages.map((message, index) => toLangChainMessage(message, index));
}

/** One stored message as LangChain message fields: tool_use blocks become tool_calls; a tool_result block is UNSUPPORTED_CONTENT (LangChain answers a call with a ToolMessage: store results as tool messages). */
export function toLangChainMessage(message: Message, index = 0): LangChainMessageFields {
  const where: Where = { adapter: "langchain", direction: "to", index, path: `messages[${index}]` };
  const out: LangChainMessageFields = { role: message.role, content: "" };
  const calls: NonNullable<LangChainMessageFields["tool_calls"]> = [];
  forEachContentPart(message, {
    toolCall(call) {
      const args: Record<string, unknown> = call.style === "openai" ? parseArguments(call.arguments, { ...where, path: `${where.path}.tool_calls` }) : ((call.input ?? {}) as Record<string, unknown>);
      calls.push({ id: call.id, name: call.name, args, type: "tool_call" });
    },
  });
  if (typeof message.content === "string" || message.content === null) out.content = message.content ?? "";
  else {
    const parts: Record<string, unknown>[] = [];
    message.content.forEach((block, b) => {
      if (block.type === "tool_use") return;
      if (block.type === "tool_result") {
        throw adapterError("UNSUPPORTED_CONTENT", { ...where, path: `${where.path}.content[${b}]`, rule: "LangChain carries a tool result as a ToolMessage: store results as tool messages", given: block.type });
      }
      parts.push({ ...block });
    });
    out.content = parts;
  }
  if (calls.length > 0) out.tool_calls = calls;
  if (message.role === "tool" && message.tool_call_id) out.tool_call_id = message.tool_call_id;
  if (message.name) out.name = message.name;
  return out;
}

/** A LangChain content block as a stored block; undefined for a tool_use block that repeats a tool call. */
function storedBlock(block: Record<string, unknown>, role: Message["role"], callIds: Set<string>, calls: ToolCall[], names: Map<string, string>, where: Where): ContentBlock | undefined {
  const type = block?.type;
  if (type === "text" && typeof block.text === "string") return { type: "text", text: block.text };
  if (type === "image_url") {
    const image = block.image_url as string | { url?: unknown; detail?: unknown } | undefined;
    const url = typeof image === "string" ? image : image?.url;
    if (typeof url === "string") {
      const detail = typeof image === "object" ? image?.detail : undefined;
      return detail === "auto" || detail === "low" || detail === "high" ? { type: "image_url", image_url: { url, detail } } : { type: "image_url", image_url: { url } };
    }
  }
  if (type === "image") {
    const source = block.source as { type?: string; media_type?: string; data?: string; url?: string } | undefined;
    if (source && (source.type === "base64" || source.type === "url")) return { type: "image", source: { ...source, type: source.type } };
    const mediaType = typeof block.mimeType === "string" ? block.mimeType : typeof block.mime_type === "string" ? block.mime_type : "image/png";
    const data = typeof block.data === "string" ? block.data : typeof block.base64 === "string" ? block.base64 : undefined;
    if (data !== undefined) return { type: "image", source: { type: "base64", media_type: mediaType, data } };
    if (typeof block.url === "string") return { type: "image_url", image_url: { url: block.url } };
  }
  if (role === "assistant" && type === "tool_use" && typeof block.id === "string") {
    if (callIds.has(block.id)) return undefined;
    // A call only in the content (no tool_calls entry): the same call, OpenAI style, so its ToolMessage pairs with it.
    const name = String(block.name ?? "");
    callIds.add(block.id);
    names.set(block.id, name);
    calls.push({ id: block.id, type: "function", function: { name, arguments: JSON.stringify(block.input ?? {}) } });
    return undefined;
  }
  if (role === "assistant" && type === "thinking" && typeof block.thinking === "string") {
    return typeof block.signature === "string" ? { type: "thinking", thinking: block.thinking, signature: block.signature } : { type: "thinking", thinking: block.thinking };
  }
  if (role === "assistant" && type === "reasoning" && typeof block.reasoning === "string") return { type: "thinking", thinking: block.reasoning };
  if (role === "assistant" && type === "redacted_thinking" && typeof block.data === "string") return { type: "redacted_thinking", data: block.data };
  if (role === "assistant" && type === "compaction") {
    // Ours, as toLangChain wrote it; or Anthropic's own block, as ChatAnthropic returns the API's content.
    const data = block.data as { type?: unknown } | undefined;
    if ((block.provider === "anthropic" || block.provider === "openai") && data?.type === "compaction") return { type: "compaction", provider: block.provider, data: JSON.parse(JSON.stringify(data)) as never };
    if (block.provider === undefined && (block.content === null || typeof block.content === "string")) return { type: "compaction", provider: "anthropic", data: JSON.parse(JSON.stringify(block)) as never };
  }
  if (typeof block !== "object" || block === null || typeof type !== "string") {
    throw adapterError("UNKNOWN_BLOCK", { ...where, rule: "a content block is an object with a string type", given: block });
  }
  // A provider's own block (citations, server tool results, …): kept as its JSON so it is counted.
  return { type: "text", text: JSON.stringify(block) };
}
