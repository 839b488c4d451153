/**
 * The text of a message, measured and joined the same way by every reader (the window's
 * truncation, the truncation strategy's character limits).
 */
import type { ContentBlock, Message, TextBlock, ToolResultBlock } from "../generated/index.js";
import { forEachContentPart, type ContentVisitor } from "./message-content.js";

/** Characters of text a message carries (content, tool results, tool calls, thinking, name). */
export function textLength(message: Message): number {
  lengthVisitor.n = message.name?.length ?? 0;
  forEachContentPart(message, lengthVisitor);
  return lengthVisitor.n;
}

/** The text of string content or of the text blocks in a block list, joined by "\n". */
export function joinText(content: Message["content"] | ToolResultBlock["content"]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const block of content as ContentBlock[]) if (block?.type === "text") texts.push((block as TextBlock).text);
  return texts.join("\n");
}

/**
 * One reusable visitor: textLength runs on every message the window measures, so it allocates
 * nothing per call (the walk is synchronous, so sharing the accumulator is safe).
 */
const lengthVisitor: ContentVisitor & { n: number } = {
  n: 0,
  text(text) {
    this.n += text.length;
  },
  resultText(text) {
    this.n += text.length;
  },
  thinking(text) {
    this.n += text.length;
  },
  toolCall(call) {
    this.n += call.name.length + (call.style === "openai" ? call.arguments.length : jsonLength(call.input));
  },
};

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}
