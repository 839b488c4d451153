/**
 * Truncated copies of tool results and user prompts, for the ladder (see ladder.ts).
 *
 * | message                          | truncatable part(s)                       | in the copy                                  |
 * |----------------------------------|-------------------------------------------|----------------------------------------------|
 * | `tool` message                   | its content (text blocks joined by "\n")  | content becomes the truncated string         |
 * | user message with tool_result blocks | each tool_result block's content       | that block's content becomes the truncated string (`is_error` kept) |
 * | user prompt (a turn start)       | its content (text blocks joined by "\n")  | content becomes the truncated string          |
 *
 * A truncated part keeps its head and tail and says how much was cut (truncate-text.ts); images
 * inside a truncated part are dropped with it. Everything else of the message (role, name,
 * tool_call_id, other blocks, metadata) is kept, and the copy is marked
 * `metadata.window.truncated = { chars, keptChars, parts }`. The input is never changed.
 */
import type { Message, ToolResultBlock } from "@amplifier-ts/contracts";
import { joinText, textLength } from "@amplifier-ts/contracts";
import { isToolResultBlock } from "./message-shape.js";
import { truncateText } from "./truncate-text.js";
import { freezeCreated, withMark } from "./window-marks.js";

// The text of a message is part of the shared vocabulary (contracts/messages/message-text.ts).
export { joinText, textLength };

export interface TextPart {
  /** Index of the tool_result block in `content`; -1 for the message's whole content. */
  readonly block: number;
  readonly text: string;
}

export interface PartCap {
  readonly part: TextPart;
  readonly maxTokens: number;
}

/** The tool-result parts of a result carrier, in order. */
export function resultParts(message: Message): TextPart[] {
  if (message.role === "tool") return [{ block: -1, text: joinText(message.content) }];
  if (!Array.isArray(message.content)) return [];
  const parts: TextPart[] = [];
  message.content.forEach((block, i) => {
    if (isToolResultBlock(block)) parts.push({ block: i, text: joinText(block.content ?? "") });
  });
  return parts;
}

/** The prompt of a user message, as one text part. */
export function promptPart(message: Message): TextPart {
  return { block: -1, text: joinText(message.content) };
}

/** A frozen copy of `message` with each listed part cut to its cap (marked truncated when anything was cut). */
export function truncateParts(message: Message, caps: readonly PartCap[], countText: (text: string) => number): Message {
  let chars = 0;
  let keptChars = 0;
  let content: Message["content"] = message.content;
  const created: object[] = [];
  for (const { part, maxTokens } of caps) {
    const cut = truncateText(part.text, maxTokens, countText);
    chars += part.text.length;
    keptChars += cut.keptChars;
    if (part.block === -1) {
      // A prompt whose text is kept whole keeps its content as it was (its blocks included): a
      // "cut" that cuts nothing is no truncation, and flattening the blocks would change it unmarked.
      if (cut.keptChars < part.text.length) content = cut.text;
      continue;
    }
    if (!Array.isArray(content)) continue;
    if (content === message.content) {
      content = [...content];
      created.push(content);
    }
    const block: ToolResultBlock = { ...(content[part.block] as ToolResultBlock), content: cut.text };
    content[part.block] = block;
    created.push(block);
  }
  // Marked truncated only when something was cut: the mark promises a "[… N chars truncated …]" marker.
  const copy = keptChars < chars ? withMark({ ...message, content }, { truncated: { chars, keptChars, parts: caps.length } }) : { ...message, content };
  return freezeCreated(copy, created);
}
