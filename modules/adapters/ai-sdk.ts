/**
 * Stored messages ⇄ AI SDK `ModelMessage[]` (the `messages` of generateText / streamText). The
 * shapes are declared here (structurally equal to the `ai` package's) so this package depends on
 * no SDK.
 *
 * | stored                                       | ModelMessage                                                          |
 * |----------------------------------------------|-----------------------------------------------------------------------|
 * | instructions                                  | `system`, in place (windows put them first)                          |
 * | turn notes                                    | `user` text in place, `providerOptions.amplifier: { role, scope: "turn" }` (AI SDK providers refuse system messages mid-conversation); read back as the note |
 * | user text and images                          | `user` text and image parts (base64 data with mediaType, or the URL)  |
 * | assistant text, thinking, redacted thinking   | text parts; reasoning parts (`providerOptions.anthropic.signature` / `.redactedData`) |
 * | assistant `compaction` (a provider's state)   | dropped: only that provider's own API reads it |
 * | calls (`tool_calls`, `tool_use`)              | `tool-call` parts (input parsed)                                      |
 * | results                                       | one `tool` message right after the call: a `tool-result` per call, in stored order (text, `error-text`, or `content` with images) |
 * | text and images beside results                 | a `user` message after it                                            |
 */
import { forEachContentPart, isInstruction, validateMessage, type ContentBlock, type Message, type ToolCall } from "@amplifier-ts/contracts";
import { adapterError } from "./adapter-errors.js";
import { imageUrlOf, parseArguments, parseDataUrl, type Where } from "./content-parts.js";
import { fromError, plainText } from "./text-parts.js";
import { readToolTurns, type ToolResultPart, type TrailingPart } from "./tool-turns.js";

type ProviderOptions = Record<string, Record<string, unknown>>;
export type AISDKTextPart = { type: "text"; text: string; providerOptions?: ProviderOptions };
export type AISDKImagePart = { type: "image"; image: string | URL | Uint8Array; mediaType?: string; providerOptions?: ProviderOptions };
export type AISDKReasoningPart = { type: "reasoning"; text: string; providerOptions?: ProviderOptions };
export type AISDKToolCallPart = { type: "tool-call"; toolCallId: string; toolName: string; input: unknown; providerOptions?: ProviderOptions };
export type AISDKToolResultOutput =
  | { type: "text"; value: string }
  | { type: "error-text"; value: string }
  | { type: "json"; value: unknown }
  | { type: "error-json"; value: unknown }
  | { type: "content"; value: ({ type: "text"; text: string } | { type: "media"; data: string; mediaType: string } | { type: "image-url"; url: string })[] };
export type AISDKToolResultPart = { type: "tool-result"; toolCallId: string; toolName: string; output: AISDKToolResultOutput; providerOptions?: ProviderOptions };
export type ModelMessage =
  | { role: "system"; content: string; providerOptions?: ProviderOptions }
  | { role: "user"; content: string | (AISDKTextPart | AISDKImagePart)[]; providerOptions?: ProviderOptions }
  | { role: "assistant"; content: string | (AISDKTextPart | AISDKReasoningPart | AISDKToolCallPart)[]; providerOptions?: ProviderOptions }
  | { role: "tool"; content: AISDKToolResultPart[]; providerOptions?: ProviderOptions };

export function toAISDK(messages: readonly Message[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const entry of readToolTurns(messages, "ai-sdk")) {
    const where = (path = ""): Where => ({ adapter: "ai-sdk", direction: "to", index: entry.index, path: `messages[${entry.index}]${path}` });
    const message = entry.message;
    if (entry.kind === "message") {
      if (isInstruction(message)) out.push({ role: "system", content: plainText(message, where) });
      else if (message.role === "system" || message.role === "developer") {
        out.push({ role: "user", content: plainText(message, where), providerOptions: { amplifier: { role: message.role, scope: "turn" } } });
      } else if (message.role === "user") {
        out.push({ role: "user", content: typeof message.content === "string" ? message.content : userParts(message.content ?? [], where()) });
      } else out.push({ role: "assistant", content: assistantParts(message, entry.index) });
      continue;
    }
    out.push({ role: "assistant", content: assistantParts(message, entry.index) });
    out.push({ role: "tool", content: entry.results.map(resultPart) });
    if (entry.trailing.length > 0) out.push({ role: "user", content: trailingParts(entry.trailing) });
  }
  return out;
}

export function fromAISDK(messages: readonly ModelMessage[]): Message[] {
  if (!Array.isArray(messages)) throw adapterError("INVALID_INPUT", { adapter: "ai-sdk", direction: "from", index: -1, path: "messages", rule: "the input is an array of ModelMessage", given: messages });
  const out: Message[] = [];
  messages.forEach((m, index) => {
    const where: Where = { adapter: "ai-sdk", direction: "from", index, path: `messages[${index}]` };
    const part = (p: number): Where => ({ ...where, path: `${where.path}.content[${p}]` });
    switch (m?.role) {
      case "system":
        out.push(checked({ role: "system", content: m.content }, where));
        return;
      case "user": {
        const note = m.providerOptions?.amplifier;
        if (note?.scope === "turn" && (note.role === "system" || note.role === "developer") && typeof m.content === "string") {
          out.push(checked({ role: note.role, content: m.content, metadata: { scope: "turn" } }, where));
          return;
        }
        const content = typeof m.content === "string" ? m.content : m.content.map((p: AISDKTextPart | AISDKImagePart, k: number) => storedUserPart(p, part(k)));
        out.push(checked({ role: "user", content }, where));
        return;
      }
      case "assistant": {
        if (typeof m.content === "string") {
          out.push(checked({ role: "assistant", content: m.content }, where));
          return;
        }
        const content: ContentBlock[] = [];
        const calls: ToolCall[] = [];
        m.content.forEach((p: AISDKTextPart | AISDKReasoningPart | AISDKToolCallPart, k: number) => {
          if (p.type === "text") content.push({ type: "text", text: p.text });
          else if (p.type === "reasoning") {
            const anthropic = p.providerOptions?.anthropic;
            if (typeof anthropic?.redactedData === "string") content.push({ type: "redacted_thinking", data: anthropic.redactedData });
            else content.push(typeof anthropic?.signature === "string" ? { type: "thinking", thinking: p.text, signature: anthropic.signature } : { type: "thinking", thinking: p.text });
          } else if (p.type === "tool-call") calls.push({ id: p.toolCallId, type: "function", function: { name: p.toolName, arguments: JSON.stringify(p.input ?? {}) } });
          else throw unknown(part(k), (p as { type?: unknown }).type, "assistant parts read back are text, reasoning and tool-call");
        });
        const onlyText = content.length === 1 && content[0]!.type === "text";
        const stored = content.length === 0 ? (calls.length ? null : "") : onlyText ? (content[0] as { text: string }).text : content;
        out.push(checked({ role: "assistant", content: stored, ...(calls.length ? { tool_calls: calls } : {}) }, where));
        return;
      }
      case "tool":
        m.content.forEach((p: AISDKToolResultPart, k: number) => {
          if (p?.type !== "tool-result") throw unknown(part(k), (p as { type?: unknown })?.type, "tool message parts read back are tool-result");
          out.push(checked({ role: "tool", tool_call_id: p.toolCallId, name: p.toolName, content: storedOutput(p.output, part(k)) }, where));
        });
        return;
      default:
        throw adapterError("INVALID_INPUT", { ...where, rule: "a ModelMessage has role system, user, assistant or tool", given: (m as { role?: unknown } | null)?.role });
    }
  });
  return out;
}

function assistantParts(message: Message, index: number): (AISDKTextPart | AISDKReasoningPart | AISDKToolCallPart)[] {
  const where: Where = { adapter: "ai-sdk", direction: "to", index, path: `messages[${index}]` };
  const parts: (AISDKTextPart | AISDKReasoningPart | AISDKToolCallPart)[] = [];
  if (typeof message.content === "string") {
    if (message.content !== "") parts.push({ type: "text", text: message.content });
  } else
    (message.content ?? []).forEach((block, b) => {
      if (block.type === "text") parts.push({ type: "text", text: block.text });
      else if (block.type === "thinking") parts.push(block.signature ? { type: "reasoning", text: block.thinking, providerOptions: { anthropic: { signature: block.signature } } } : { type: "reasoning", text: block.thinking });
      else if (block.type === "redacted_thinking") parts.push({ type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: block.data } } });
      // A provider's compaction state is read by that provider's own API only; the AI SDK has no part for it.
      else if (block.type !== "tool_use" && block.type !== "compaction") throw adapterError("UNSUPPORTED_CONTENT", { ...where, path: `${where.path}.content[${b}]`, rule: "an assistant message carries text, reasoning and tool calls", given: block.type });
    });
  forEachContentPart(message, {
    toolCall(call) {
      const input = call.style === "openai" ? parseArguments(call.arguments, { ...where, path: `${where.path}.tool_calls` }) : (call.input ?? {});
      parts.push({ type: "tool-call", toolCallId: call.id, toolName: call.name, input });
    },
  });
  return parts;
}

function resultPart(result: ToolResultPart): AISDKToolResultPart {
  const base = { type: "tool-result" as const, toolCallId: result.id, toolName: result.name };
  if (typeof result.content === "string") return { ...base, output: { type: result.isError ? "error-text" : "text", value: result.content } };
  const where: Where = { adapter: "ai-sdk", direction: "to", index: result.index, path: `messages[${result.index}].content` };
  const value = result.content.map((block) => {
    if (block.type === "text") return { type: "text" as const, text: block.text };
    const url = imageUrlOf(block, where).url;
    const data = parseDataUrl(url);
    return data ? { type: "media" as const, data: data.data, mediaType: data.mediaType } : { type: "image-url" as const, url };
  });
  return { ...base, output: { type: "content", value } };
}

function userParts(blocks: readonly ContentBlock[], where: Where): (AISDKTextPart | AISDKImagePart)[] {
  return blocks.map((block, b) => {
    if (block.type === "text") return { type: "text", text: block.text };
    if (block.type === "image" && block.source?.type === "base64" && block.source.data) return { type: "image", image: block.source.data, mediaType: block.source.media_type ?? "image/png" };
    if (block.type === "image" || block.type === "image_url") return { type: "image", image: imageUrlOf(block, { ...where, path: `${where.path}.content[${b}]` }).url };
    throw adapterError("UNSUPPORTED_CONTENT", { ...where, path: `${where.path}.content[${b}]`, rule: "user-side content is text and images", given: block.type });
  });
}

function trailingParts(trailing: readonly TrailingPart[]): (AISDKTextPart | AISDKImagePart)[] {
  const first = trailing[0]!.index;
  return userParts(trailing.map((t) => t.block), { adapter: "ai-sdk", direction: "to", index: first, path: `messages[${first}]` });
}

function storedUserPart(part: AISDKTextPart | AISDKImagePart | { type: string }, where: Where): ContentBlock {
  if (part.type === "text") return { type: "text", text: (part as AISDKTextPart).text };
  if (part.type === "image") {
    const { image, mediaType } = part as AISDKImagePart;
    if (image instanceof URL) return { type: "image_url", image_url: { url: image.href } };
    if (image instanceof Uint8Array) return { type: "image", source: { type: "base64", media_type: mediaType ?? "image/png", data: Buffer.from(image).toString("base64") } };
    if (typeof image === "string") {
      if (/^(https?:|data:)/.test(image)) return { type: "image_url", image_url: { url: image } };
      return { type: "image", source: { type: "base64", media_type: mediaType ?? "image/png", data: image } };
    }
  }
  throw unknown(where, part.type, "user parts read back are text and image");
}

function storedOutput(output: AISDKToolResultOutput, where: Where): string | ContentBlock[] {
  switch (output?.type) {
    case "text":
    case "error-text":
      return output.value;
    case "json":
    case "error-json":
      return JSON.stringify(output.value);
    case "content":
      return output.value.map((part): ContentBlock => {
        if (part.type === "text") return { type: "text", text: part.text };
        if (part.type === "media") return { type: "image", source: { type: "base64", media_type: part.mediaType, data: part.data } };
        if (part.type === "image-url") return { type: "image", source: { type: "url", url: part.url } };
        throw unknown(where, (part as { type?: unknown }).type, "tool output content read back is text, media and image-url");
      });
    default:
      throw unknown(where, (output as { type?: unknown } | undefined)?.type, "tool outputs read back are text, error-text, json, error-json and content");
  }
}

function unknown(where: Where, given: unknown, rule: string) {
  return adapterError("UNKNOWN_BLOCK", { ...where, rule, given });
}

function checked(message: Message, where: Where): Message {
  try {
    return validateMessage(message, where.path);
  } catch (error) {
    throw fromError(error, where);
  }
}
