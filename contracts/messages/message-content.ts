/**
 * The one walker over a message's content. Every reader of a message's parts — the window's shape
 * rules and text lengths, search's indexed text, the summarizers' transcript — goes through it, so
 * the block vocabulary (which block is a call, a result, text, thinking, an image) is stated once.
 *
 * | part of the message                           | visitor method  | order           |
 * |-----------------------------------------------|-----------------|-----------------|
 * | string content; a `text` block                 | `text`          | content order   |
 * | `tool_use` block                               | `toolCall` (style "anthropic", `input`) | content order |
 * | `tool_result` block                            | `toolResult`, then `resultText` for its string content or each of its text blocks | content order |
 * | `thinking` block                               | `thinking`      | content order   |
 * | `image` / `image_url` block                    | `image`         | content order   |
 * | `redacted_thinking` block                      | — (opaque data, no text) |        |
 * | `compaction` block (a provider's compaction state) | — (opaque, never text: only its provider's adapter reads it) | |
 * | each `tool_calls` entry (OpenAI)               | `toolCall` (style "openai", `arguments`) | after the content |
 *
 * Roles and `name` are not content: readers that care (a tool message's text is a tool result)
 * read them from the message. Non-object blocks are skipped: the walker never throws; validation
 * (validateMessage) and the token counter's own checks (@amplifier-ts/tokens) report malformed input.
 */
import type { ImageBlock, ImageUrlBlock, Message, ToolResultBlock } from "../generated/index.js";

/** Which provider convention a tool call uses; its synthetic result follows the same one. */
export type ToolStyle = "openai" | "anthropic";

/** One tool call as the walker reports it; `arguments` (OpenAI, a JSON string) or `input` (Anthropic, an object). */
export type ToolCallPart =
  | { readonly style: "openai"; readonly id: string; readonly name: string; readonly arguments: string }
  | { readonly style: "anthropic"; readonly id: string; readonly name: string; readonly input: unknown };

export interface ContentVisitor {
  /** String content, or a text block of the message's own content (not inside a tool result). */
  text?(text: string): void;
  /** A tool_use block (content order) or an OpenAI tool_calls entry (after the content). */
  toolCall?(call: ToolCallPart): void;
  /** A tool_result block, before its text. */
  toolResult?(block: ToolResultBlock): void;
  /** Text a tool_result block carries: its string content, or each of its text blocks. */
  resultText?(text: string): void;
  thinking?(text: string): void;
  image?(block: ImageBlock | ImageUrlBlock): void;
}

/** Visits each part of `message` (see the table above). */
export function forEachContentPart(message: Message, visitor: ContentVisitor): void {
  const content = message.content;
  if (typeof content === "string") visitor.text?.(content);
  else if (Array.isArray(content)) {
    for (const block of content) {
      if (typeof block !== "object" || block === null) continue;
      switch (block.type) {
        case "text":
          visitor.text?.(block.text);
          break;
        case "tool_use":
          visitor.toolCall?.({ style: "anthropic", id: block.id, name: block.name, input: block.input });
          break;
        case "tool_result":
          visitor.toolResult?.(block);
          if (visitor.resultText) {
            // Called as a method (not handed over detached): visitors may keep state on `this`.
            if (typeof block.content === "string") visitor.resultText(block.content);
            else if (Array.isArray(block.content)) for (const inner of block.content) if (inner?.type === "text") visitor.resultText(inner.text);
          }
          break;
        case "thinking":
          visitor.thinking?.(block.thinking);
          break;
        case "image":
        case "image_url":
          visitor.image?.(block);
          break;
      }
    }
  }
  if (visitor.toolCall && message.tool_calls) {
    for (const call of message.tool_calls) {
      if (typeof call !== "object" || call === null) continue;
      visitor.toolCall({ style: "openai", id: call.id, name: call.function?.name, arguments: call.function?.arguments });
    }
  }
}

/** The text of a tool_result block: its string content, or each of its text blocks. */
export function forEachResultText(block: ToolResultBlock, text: (text: string) => void): void {
  const content = block.content;
  if (typeof content === "string") text(content);
  else if (Array.isArray(content)) for (const inner of content) if (inner?.type === "text") text(inner.text);
}

/** A tool call's arguments as JSON text: OpenAI's string as given, Anthropic's input serialised (`{}` when absent). */
export function callArguments(call: ToolCallPart): string {
  return call.style === "openai" ? call.arguments : JSON.stringify(call.input ?? {});
}
