/**
 * Stored messages ⇄ OpenAI Responses (`instructions`, `input`, `tools` of POST /responses).
 *
 * | stored                                              | Responses                                                      |
 * |-----------------------------------------------------|----------------------------------------------------------------|
 * | instructions (system/developer, not turn notes)      | `instructions`: their text joined by a blank line              |
 * | turn notes                                           | a `message` item of the same role, in place                    |
 * | user: text, image / image_url blocks                 | `message` (user): `input_text` / `input_image` parts           |
 * | assistant text                                       | `message` (assistant) with the text                            |
 * | assistant thinking read from Responses (`metadata.openai.reasoning` holds its item ids) | a `reasoning` item (summary text, encrypted_content from the signature) where it sat: before the text or calls it led to; other thinking is dropped (the API needs its own item id) |
 * | assistant `compaction` block of provider "openai" (a `compaction` item read back: server-side compaction's output or `/responses/compact`'s) | its `data` verbatim (type, id, encrypted_content, …), first among the message's items, in content order with its reasoning; another provider's compaction block is dropped |
 * | calls (`tool_calls`, `tool_use`)                     | one `function_call` item per call (call_id, name, arguments)   |
 * | results                                              | `function_call_output` per call, right after the calls, in stored order (images as `input_image` output parts) |
 * | text and images beside results                        | a user `message` after the outputs                             |
 */
import { forEachContentPart, isInstruction, validateMessage, type ContentBlock, type Message, type ToolCall } from "@amplifier-ts/contracts";
import { adapterError } from "./adapter-errors.js";
import { imageBlockOf, imageUrlOf, type Where } from "./content-parts.js";
import { fromError, plainText, textOf } from "./text-parts.js";
import { checkedTools, toResponsesTools, type ResponsesTool } from "./tool-definitions.js";
import { readToolTurns } from "./tool-turns.js";
import type { ToRequestOptions } from "./openai-chat.js";

export type ResponsesInputText = { type: "input_text"; text: string };
export type ResponsesInputImage = { type: "input_image"; image_url: string; detail: "auto" | "low" | "high" };
export type ResponsesOutputText = { type: "output_text"; text: string; annotations?: unknown[] };
export type ResponsesItem =
  | { type: "message"; role: "user" | "system" | "developer"; content: string | (ResponsesInputText | ResponsesInputImage)[] }
  | { type: "message"; role: "assistant"; content: string | (ResponsesOutputText | { type: "refusal"; refusal: string })[]; id?: string; status?: string }
  | { type: "function_call"; call_id: string; name: string; arguments: string; id?: string; status?: string }
  | { type: "function_call_output"; call_id: string; output: string | (ResponsesInputText | ResponsesInputImage)[] }
  | { type: "reasoning"; id: string; summary: { type: "summary_text"; text: string }[]; encrypted_content?: string }
  | ResponsesCompactionItem;
/** The encrypted compaction item (server-side `context_management` compaction, `/responses/compact`); other keys kept as they came. */
export type ResponsesCompactionItem = { type: "compaction"; encrypted_content: string; id?: string; [key: string]: unknown };

export interface OpenAIResponsesRequest {
  instructions?: string;
  input: ResponsesItem[];
  tools?: ResponsesTool[];
}
/** A Responses API response, as far as the adapter reads it. */
export interface OpenAIResponse {
  output: ResponsesItem[];
}

/** Where fromOpenAIResponses keeps reasoning item ids, in the order of the message's thinking blocks. */
export interface OpenAIReasoningMetadata {
  reasoning: (string | null)[];
}

export function toOpenAIResponses(messages: readonly Message[], options: ToRequestOptions = {}): OpenAIResponsesRequest {
  const tools = checkedTools(options.tools, "openai-responses");
  const instructions: string[] = [];
  const input: ResponsesItem[] = [];
  for (const entry of readToolTurns(messages, "openai-responses")) {
    const where = (path = ""): Where => ({ adapter: "openai-responses", direction: "to", index: entry.index, path: `messages[${entry.index}]${path}` });
    const message = entry.message;
    if (entry.kind === "message") {
      if (isInstruction(message)) instructions.push(plainText(message, where));
      else if (message.role === "system" || message.role === "developer") input.push({ type: "message", role: message.role, content: plainText(message, where) });
      else if (message.role === "user") input.push({ type: "message", role: "user", content: userContent(message.content, where) });
      else input.push(...assistantItems(message, [], where));
      continue;
    }
    const calls: ResponsesItem[] = [];
    forEachContentPart(message, {
      toolCall(call) {
        calls.push({ type: "function_call", call_id: call.id, name: call.name, arguments: call.style === "openai" ? call.arguments : JSON.stringify(call.input ?? {}) });
      },
    });
    const order = new Map(entry.calls.map((c, k) => [c.id, k]));
    calls.sort((a, b) => order.get((a as { call_id: string }).call_id)! - order.get((b as { call_id: string }).call_id)!);
    input.push(...assistantItems(message, calls, where));
    for (const result of entry.results) {
      const at: Where = { adapter: "openai-responses", direction: "to", index: result.index, path: `messages[${result.index}].content` };
      input.push({ type: "function_call_output", call_id: result.id, output: typeof result.content === "string" ? result.content : inputParts(result.content, at) });
    }
    if (entry.trailing.length > 0) {
      const first = entry.trailing[0]!.index;
      input.push({ type: "message", role: "user", content: inputParts(entry.trailing.map((t) => t.block), { adapter: "openai-responses", direction: "to", index: first, path: `messages[${first}].content` }) });
    }
  }
  const request: OpenAIResponsesRequest = { input };
  if (instructions.length > 0) request.instructions = instructions.join("\n\n");
  if (tools.length > 0) request.tools = toResponsesTools(tools);
  return request;
}

/** A request ({ instructions?, input }), a response ({ output }) or a list of items, as stored messages. */
export function fromOpenAIResponses(source: { instructions?: string | null; input: string | readonly ResponsesItem[] } | OpenAIResponse | readonly ResponsesItem[]): Message[] {
  const out: Message[] = [];
  let items: readonly ResponsesItem[];
  if (Array.isArray(source)) items = source;
  else if (Array.isArray((source as OpenAIResponse)?.output)) items = (source as OpenAIResponse).output;
  else {
    const request = source as { instructions?: string | null; input: string | readonly ResponsesItem[] };
    if (typeof request?.instructions === "string" && request.instructions !== "") out.push({ role: "system", content: request.instructions });
    if (typeof request?.input === "string") items = [{ type: "message", role: "user", content: request.input }];
    else if (Array.isArray(request?.input)) items = request.input;
    else throw adapterError("INVALID_INPUT", { adapter: "openai-responses", direction: "from", index: -1, path: "input", rule: "the input is a request ({ instructions?, input }), a response ({ output }) or a list of items", given: source });
  }
  const names = new Map<string, string>();
  let assistant: { content: ContentBlock[]; calls: ToolCall[]; reasoning: (string | null)[]; index: number } | undefined;
  const flush = () => {
    if (!assistant) return;
    const { content, calls, reasoning, index } = assistant;
    assistant = undefined;
    const onlyText = content.length === 1 && content[0]!.type === "text";
    const message: Message = {
      role: "assistant",
      content: content.length === 0 ? (calls.length ? null : "") : onlyText ? (content[0] as { text: string }).text : content,
      ...(calls.length ? { tool_calls: calls } : {}),
      ...(reasoning.some((id) => id !== null) ? { metadata: { openai: { reasoning } satisfies OpenAIReasoningMetadata } } : {}),
    };
    out.push(checked(message, { adapter: "openai-responses", direction: "from", index, path: `input[${index}]` }));
  };
  const open = (index: number) => (assistant ??= { content: [], calls: [], reasoning: [], index });
  items.forEach((raw, index) => {
    const where: Where = { adapter: "openai-responses", direction: "from", index, path: `input[${index}]` };
    const item = raw as { type?: string; role?: string; content?: string | { type: string }[] };
    const type = item?.type ?? (item?.role ? "message" : undefined);
    if (type === "message" && item.role === "assistant") {
      for (const [p, part] of asParts(item.content ?? "").entries()) open(index).content.push(storedPart(part, { ...where, path: `${where.path}.content[${p}]` }));
      return;
    }
    if (type === "reasoning") {
      const reasoning = raw as Extract<ResponsesItem, { type: "reasoning" }>;
      const block: ContentBlock = { type: "thinking", thinking: (reasoning.summary ?? []).map((s) => s.text).join("\n\n") };
      if (reasoning.encrypted_content) block.signature = reasoning.encrypted_content;
      const target = open(index);
      target.content.push(block);
      target.reasoning.push(reasoning.id ?? null);
      return;
    }
    if (type === "compaction") {
      const item = raw as ResponsesCompactionItem;
      if (typeof item.encrypted_content !== "string") {
        throw adapterError("INVALID_INPUT", { ...where, rule: "a Responses compaction item carries encrypted_content (a string)", expected: "string", given: item.encrypted_content });
      }
      // Verbatim: every key in its order, so it goes back byte-identical (a JSON copy detaches it from the caller's object).
      open(index).content.push({ type: "compaction", provider: "openai", data: JSON.parse(JSON.stringify(item)) as ResponsesCompactionItem });
      return;
    }
    if (type === "function_call") {
      const call = raw as Extract<ResponsesItem, { type: "function_call" }>;
      names.set(call.call_id, call.name);
      open(index).calls.push({ id: call.call_id, type: "function", function: { name: call.name, arguments: call.arguments } });
      return;
    }
    flush();
    if (type === "function_call_output") {
      const output = raw as Extract<ResponsesItem, { type: "function_call_output" }>;
      const content = typeof output.output === "string" ? output.output : output.output.map((part, p) => storedPart(part, { ...where, path: `${where.path}.output[${p}]` }));
      const name = names.get(output.call_id);
      out.push(checked({ role: "tool", tool_call_id: output.call_id, content, ...(name ? { name } : {}) }, where));
      return;
    }
    if (type === "message" && (item.role === "user" || item.role === "system" || item.role === "developer")) {
      const content = typeof item.content === "string" ? item.content : (item.content ?? []).map((part, p) => storedPart(part, { ...where, path: `${where.path}.content[${p}]` }));
      out.push(checked({ role: item.role as "user" | "system" | "developer", content }, where));
      return;
    }
    throw adapterError("UNKNOWN_BLOCK", { ...where, rule: "Responses items read back are message, reasoning, compaction, function_call and function_call_output", expected: "message | reasoning | compaction | function_call | function_call_output", given: type });
  });
  flush();
  return out;
}

/**
 * Items for one assistant message, in its content order: each replayable reasoning item (one with
 * its API item id) where its thinking block sits — so a reasoning item stays right before the
 * output it led to, as the response had it — and an OpenAI compaction item where its block sits;
 * the text between them as assistant messages, then its calls. A reasoning item with nothing
 * after it is left out (the API refuses it alone); a message with no text and no calls sends its
 * compaction items alone (the whole of /responses/compact's state, or a reply cut short after it).
 */
function assistantItems(message: Message, calls: ResponsesItem[], where: (path?: string) => Where): ResponsesItem[] {
  const ids = (message.metadata?.openai as Partial<OpenAIReasoningMetadata> | undefined)?.reasoning ?? [];
  const items: ResponsesItem[] = [];
  let text = "";
  const flushText = () => {
    if (text !== "") items.push({ type: "message", role: "assistant", content: text });
    text = "";
  };
  let thinkingIndex = 0;
  if (typeof message.content === "string") text = message.content;
  else
    (message.content ?? []).forEach((block, b) => {
      if (block.type === "text") text += block.text;
      else if (block.type === "thinking") {
        const id = ids[thinkingIndex++];
        if (typeof id === "string" && id !== "") {
          flushText();
          items.push({ type: "reasoning", id, summary: block.thinking === "" ? [] : [{ type: "summary_text", text: block.thinking }], ...(block.signature ? { encrypted_content: block.signature } : {}) });
        }
      } else if (block.type === "compaction") {
        if (block.provider === "openai") {
          flushText();
          items.push(compactionItem(block.data, where(`.content[${b}].data`)));
        }
      } else if (block.type !== "redacted_thinking" && block.type !== "tool_use") {
        throw adapterError("UNSUPPORTED_CONTENT", { ...where(`.content[${b}]`), rule: "an assistant message carries text, reasoning and tool calls in Responses", given: block.type });
      }
    });
  flushText();
  items.push(...calls);
  if (!items.some((item) => item.type === "message" || item.type === "function_call")) return items.filter((item) => item.type === "compaction");
  while (items.at(-1)?.type === "reasoning") items.pop();
  return items;
}

/** A stored OpenAI compaction item, copied key by key (the stored history is never changed). */
function compactionItem(data: Record<string, unknown>, where: Where): ResponsesCompactionItem {
  if (data?.type !== "compaction" || typeof data.encrypted_content !== "string") {
    throw adapterError("INVALID_INPUT", { ...where, rule: "an OpenAI compaction item is { type: \"compaction\", encrypted_content, id? } as the API returned it", expected: '{ type: "compaction", encrypted_content: string }', given: data });
  }
  return JSON.parse(JSON.stringify(data)) as ResponsesCompactionItem;
}

function userContent(content: Message["content"], where: (path?: string) => Where): string | (ResponsesInputText | ResponsesInputImage)[] {
  if (typeof content === "string" || content === null) return content ?? "";
  return inputParts(content, where());
}

function inputParts(blocks: readonly ContentBlock[], where: Where): (ResponsesInputText | ResponsesInputImage)[] {
  return blocks.map((block, b) => {
    if (block.type === "text") return { type: "input_text", text: block.text };
    if (block.type === "image" || block.type === "image_url") {
      const image = imageUrlOf(block, { ...where, path: `${where.path}[${b}]` });
      return { type: "input_image", image_url: image.url, detail: image.detail ?? "auto" };
    }
    throw adapterError("UNSUPPORTED_CONTENT", { ...where, path: `${where.path}[${b}]`, rule: "user-side content is text and images", given: block.type });
  });
}

function asParts(content: string | { type: string }[]): { type: string }[] {
  return typeof content === "string" ? [{ type: "output_text", text: content } as ResponsesOutputText] : content;
}

function storedPart(part: { type: string }, where: Where): ContentBlock {
  const text = textOf(part);
  if (text !== undefined) return { type: "text", text };
  if (part.type === "input_image") {
    const image = part as ResponsesInputImage & { image_url?: string };
    if (typeof image.image_url === "string") return imageBlockOf(image.image_url, image.detail);
  }
  throw adapterError("UNKNOWN_BLOCK", { ...where, rule: "Responses content parts read back are input_text, output_text, refusal and input_image (with image_url)", given: part.type });
}

function checked(message: Message, where: Where): Message {
  try {
    return validateMessage(message, where.path);
  } catch (error) {
    throw fromError(error, where);
  }
}
