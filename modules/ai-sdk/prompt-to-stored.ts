/**
 * One message of the provider-level prompt (`LanguageModelV3Prompt`) → the stored messages the
 * window engine counts and cuts. Only counting and cutting read them: the window sent is made of
 * the prompt's own objects again (stored-to-prompt.ts), so nothing here has to round-trip.
 *
 * | prompt                                           | stored                                                        |
 * |--------------------------------------------------|---------------------------------------------------------------|
 * | `system`                                         | a system message (an instruction: kept, first)                |
 * | `user` text / file parts                         | a user message, one content block per part                    |
 * | `assistant` text, reasoning, file parts          | text, thinking (redacted: redacted_thinking), image/text blocks |
 * | `assistant` tool-call (executed by the client)   | an entry of `tool_calls`: its pair is the window's business   |
 * | `assistant` provider-executed call and its result | text blocks of the same message (the pair never leaves it)   |
 * | `tool` tool-result parts                         | one tool message per result, in order                         |
 * | `tool` approval responses                        | counted as text beside the first result of their message; a tool message of approvals alone is a user message |
 *
 * File parts: an image (`image/*`) is an image block (counted by the model's image rules); a text
 * file (`text/*`, JSON) its decoded text; any other file (PDF, audio) a short stand-in text — its
 * price is the provider's and not published per page, so the count does not include it.
 * ModelMessage's shapes (string content, `image` parts) are read the same way.
 */
import type { ContentBlock, Message, ToolCall } from "@amplifier-ts/contracts";
import { invalidArgument } from "./invalid-argument.js";

/** A stored message and which prompt parts its content blocks stand for. */
export interface StoredPiece {
  readonly message: Message;
  /** The prompt part (index in the message's content) of a tool message; -1 for a whole message. */
  readonly part: number;
  /** Content block j stands for prompt part `blockParts[j]` (tool results: output item j). */
  readonly blockParts: readonly number[];
  /** Leading blocks that are the result's own (the rest carry approval responses). */
  readonly ownBlocks: number;
}

type Loose = Record<string, unknown>;

export function storedPieces(message: unknown, where: string): StoredPiece[] {
  const m = (typeof message === "object" && message !== null ? message : {}) as Loose;
  const content = m.content;
  switch (m.role) {
    case "system":
      return [whole({ role: "system", content: typeof content === "string" ? content : textOf(content) })];
    case "user": {
      if (typeof content === "string") return [whole({ role: "user", content })];
      const { blocks, blockParts } = partBlocks(arrayOf(content, where));
      return [{ message: { role: "user", content: blocks }, part: -1, blockParts, ownBlocks: blocks.length }];
    }
    case "assistant":
      return [assistantPiece(content, where)];
    case "tool":
      return toolPieces(arrayOf(content, where));
    default:
      throw invalidArgument(`${where}.role`, "a prompt message with role system, user, assistant or tool", m?.role);
  }
}

function whole(message: Message): StoredPiece {
  return { message, part: -1, blockParts: [], ownBlocks: 0 };
}

function assistantPiece(content: unknown, where: string): StoredPiece {
  if (typeof content === "string") return whole({ role: "assistant", content });
  const blocks: ContentBlock[] = [];
  const blockParts: number[] = [];
  const calls: ToolCall[] = [];
  arrayOf(content, where).forEach((part, k) => {
    const push = (block: ContentBlock) => {
      blocks.push(block);
      blockParts.push(k);
    };
    switch (part.type) {
      case "text":
        return push({ type: "text", text: String(part.text ?? "") });
      case "reasoning": {
        const anthropic = (part.providerOptions as Loose | undefined)?.anthropic as Loose | undefined;
        if (typeof anthropic?.redactedData === "string") return push({ type: "redacted_thinking", data: anthropic.redactedData });
        const signature = typeof anthropic?.signature === "string" ? anthropic.signature : undefined;
        return push(signature ? { type: "thinking", thinking: String(part.text ?? ""), signature } : { type: "thinking", thinking: String(part.text ?? "") });
      }
      case "tool-call":
        if (part.providerExecuted === true) return push({ type: "text", text: json({ tool: part.toolName, input: part.input }) });
        calls.push({ id: String(part.toolCallId), type: "function", function: { name: String(part.toolName), arguments: json(part.input ?? {}) } });
        return;
      case "tool-result":
        return push({ type: "text", text: outputText(part.output) });
      default:
        // file and image parts, approval requests and anything newer: counted, never lost.
        return push(fileBlock(part) ?? { type: "text", text: json(part) });
    }
  });
  const message: Message = { role: "assistant", content: blocks.length > 0 ? blocks : calls.length > 0 ? null : "", ...(calls.length > 0 ? { tool_calls: calls } : {}) };
  return { message, part: -1, blockParts, ownBlocks: blocks.length };
}

function toolPieces(parts: Loose[]): StoredPiece[] {
  const pieces: StoredPiece[] = [];
  const approvals: string[] = [];
  parts.forEach((part, k) => {
    if (part.type !== "tool-result") {
      approvals.push(json(part));
      return;
    }
    const { content, blockParts } = outputContent(part.output);
    pieces.push({ message: { role: "tool", tool_call_id: String(part.toolCallId), name: String(part.toolName), content }, part: k, blockParts, ownBlocks: Array.isArray(content) ? content.length : 0 });
  });
  if (approvals.length === 0) return pieces;
  if (pieces.length === 0) return [whole({ role: "user", content: approvals.join("\n") })];
  const first = pieces[0]!;
  const own = first.message.content;
  const blocks: ContentBlock[] = [...(typeof own === "string" ? [{ type: "text" as const, text: own }] : (own as ContentBlock[])), ...approvals.map((text) => ({ type: "text" as const, text }))];
  pieces[0] = { ...first, message: { ...first.message, content: blocks }, ownBlocks: typeof own === "string" ? 0 : first.ownBlocks };
  return pieces;
}

/** A tool output as stored content: text, or blocks (item j of a `content` output → block j). */
function outputContent(output: unknown): { content: string | ContentBlock[]; blockParts: number[] } {
  const o = output as Loose | undefined;
  if (o?.type !== "content" || !Array.isArray(o.value)) return { content: outputText(output), blockParts: [] };
  const items = o.value as Loose[];
  const blocks = items.map((item): ContentBlock => {
    if (item.type === "text") return { type: "text", text: String(item.text ?? "") };
    const mediaType = typeof item.mediaType === "string" ? item.mediaType : undefined;
    if ((item.type === "image-data" || item.type === "media" || item.type === "file-data") && typeof item.data === "string" && isImage(mediaType, item.type)) {
      return { type: "image", source: { type: "base64", media_type: mediaType ?? "image/png", data: item.data } };
    }
    if ((item.type === "image-url" || item.type === "file-url") && typeof item.url === "string" && isImage(mediaType, item.type)) return { type: "image_url", image_url: { url: item.url } };
    return { type: "text", text: standIn(item) };
  });
  return { content: blocks, blockParts: items.map((_, j) => j) };
}

/** The text a provider sends for a tool output that is not a list of content items. */
export function outputText(output: unknown): string {
  const o = output as Loose | undefined;
  switch (o?.type) {
    case "text":
    case "error-text":
      return String(o.value ?? "");
    case "json":
    case "error-json":
      return json(o.value);
    case "execution-denied":
      return typeof o.reason === "string" ? o.reason : "Tool execution denied.";
    case "content":
      return Array.isArray(o.value) ? (o.value as Loose[]).map((item) => (item.type === "text" ? String(item.text ?? "") : standIn(item))).join("\n") : "";
    default:
      return json(output);
  }
}

function partBlocks(parts: Loose[]): { blocks: ContentBlock[]; blockParts: number[] } {
  const blocks = parts.map((part): ContentBlock => (part.type === "text" ? { type: "text", text: String(part.text ?? "") } : (fileBlock(part) ?? { type: "text", text: json(part) })));
  return { blocks, blockParts: parts.map((_, k) => k) };
}

/** A file or image part as the block the counter prices; undefined for other parts. */
function fileBlock(part: Loose): ContentBlock | undefined {
  if (part.type !== "file" && part.type !== "image") return undefined;
  const data = part.type === "image" ? part.image : part.data;
  const mediaType = typeof part.mediaType === "string" ? part.mediaType : part.type === "image" ? "image/*" : undefined;
  if (isImage(mediaType, String(part.type))) {
    if (data instanceof URL) return { type: "image_url", image_url: { url: data.href } };
    if (typeof data === "string" && /^(https?:|data:)/.test(data)) return { type: "image_url", image_url: { url: data } };
    const base64 = typeof data === "string" ? data : data instanceof Uint8Array ? bytesToBase64(data) : "";
    return { type: "image", source: { type: "base64", media_type: mediaType === "image/*" ? "image/png" : (mediaType ?? "image/png"), data: base64 } };
  }
  if (mediaType !== undefined && /^text\/|\/json$/.test(mediaType)) {
    if (typeof data === "string" && !/^(https?:|data:)/.test(data)) return { type: "text", text: decodeBase64Text(data) };
    if (data instanceof Uint8Array) return { type: "text", text: new TextDecoder().decode(data) };
  }
  return { type: "text", text: standIn(part) };
}

function isImage(mediaType: string | undefined, type: string): boolean {
  return mediaType === undefined ? type.startsWith("image") : mediaType.startsWith("image/");
}

/** What a non-text, non-image file is counted as: its name and type (the content is the provider's to price). */
function standIn(part: Loose): string {
  const name = typeof part.filename === "string" ? ` ${part.filename}` : "";
  const type = typeof part.mediaType === "string" ? ` (${part.mediaType})` : "";
  const url = typeof part.url === "string" ? ` ${part.url}` : "";
  return `[${String(part.type)}${name}${type}${url}]`;
}

function arrayOf(content: unknown, where: string): Loose[] {
  if (!Array.isArray(content)) throw invalidArgument(`${where}.content`, "an array of parts", content);
  return content as Loose[];
}

function textOf(content: unknown): string {
  return Array.isArray(content) ? (content as Loose[]).map((p) => String(p.text ?? "")).join("") : String(content ?? "");
}

function json(value: unknown): string {
  return JSON.stringify(value ?? null) ?? "null";
}

function decodeBase64Text(data: string): string {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(data), (c) => c.charCodeAt(0)));
  } catch {
    return data;
  }
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
