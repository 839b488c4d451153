/**
 * Anthropic Messages (`{ system?, messages }`, or the `messages` array with the `system` option):
 * one message, one stored message, block for block (fromAnthropic). The top-level `system` is read
 * as instructions (kept first, counted) and given back as it was. A message the window changes (a
 * truncated `tool_result`, orphan results removed) is the caller's message with its content
 * rebuilt from the caller's blocks: unchanged blocks are the caller's objects, a truncated
 * `tool_result` is the block with its `content` replaced. A made-up result is a user message of
 * `tool_result` blocks with `is_error: true`, merged with a user message written next to it (the
 * caller's results of the same call, or the next prompt after a crash): Anthropic wants the roles to
 * alternate, and tool_result blocks first.
 */
import { fromAnthropic, toAnthropic, type AnthropicBlock, type AnthropicMessage } from "@amplifier-ts/adapters";
import type { ContentBlock, Message } from "@amplifier-ts/contracts";
import { cachedRead, textOfContent, type FormatCodec, type Group, type ReadGroup, type SentPart } from "./fit-codec.js";

/** Each item's messages, by identity, shared by every fitter (fit-codec.ts, cachedRead): the same objects convert to the same messages, whose token counts are cached. */
const cache = new WeakMap<object, readonly Message[]>();

export function anthropicCodec(): FormatCodec {
  return {
    format: "anthropic",
    read(items, index): ReadGroup {
      return { count: 1, messages: cachedRead(cache, items, index, (item) => fromAnthropic([item as AnthropicMessage])) };
    },
    rewrite(items, group: Group, sent: readonly SentPart[]) {
      const item = items[group.first] as AnthropicMessage;
      const stored = group.messages[0]!;
      const message = sent[0]!.message;
      if (typeof message.content === "string" || message.content === null || typeof item.content === "string" || !Array.isArray(stored.content)) {
        return [{ ...item, content: message.content ?? "" }];
      }
      const original = item.content as AnthropicBlock[];
      const storedBlocks = stored.content;
      const blocks = message.content.map((block: ContentBlock): AnthropicBlock => {
        const same = storedBlocks.indexOf(block);
        if (same >= 0) return original[same]!;
        if (block.type === "tool_result") {
          const at = storedBlocks.findIndex((b) => b.type === "tool_result" && b.tool_use_id === block.tool_use_id);
          if (at >= 0) return { ...(original[at] as Extract<AnthropicBlock, { type: "tool_result" }>), content: block.content as string };
        }
        return blockOf(block);
      });
      return [{ ...item, content: blocks }];
    },
    merge(previous, next) {
      const a = previous as AnthropicMessage;
      const b = next as AnthropicMessage;
      if (a?.role !== "user" || b?.role !== "user") return undefined;
      // Anthropic wants the tool_result blocks first in the user message, then the rest.
      const blocks = [...blocksOf(a), ...blocksOf(b)];
      return { ...a, content: [...blocks.filter((x) => x.type === "tool_result"), ...blocks.filter((x) => x.type !== "tool_result")] };
    },
    create(message) {
      if (message.role === "user" && Array.isArray(message.content)) return [{ role: "user", content: message.content.map(blockOf) }];
      // A strategy's system or developer message (a summary) has no place among Anthropic's
      // messages: it is user-side text, in place (merged with a user message next to it).
      if (message.role === "system" || message.role === "developer") return [{ role: "user", content: textOfContent(message.content) }];
      return toAnthropic([{ role: message.role, content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) }]).messages;
    },
  };
}

function blocksOf(message: AnthropicMessage): AnthropicBlock[] {
  return typeof message.content === "string" ? (message.content.trim() === "" ? [] : [{ type: "text", text: message.content }]) : message.content;
}

/** A stored user-side block as an Anthropic block (the stored vocabulary is Anthropic's here). */
function blockOf(block: ContentBlock): AnthropicBlock {
  if (block.type === "tool_result") return { type: "tool_result", tool_use_id: block.tool_use_id, ...(block.content === undefined ? {} : { content: block.content as string }), ...(block.is_error ? { is_error: true } : {}) };
  if (block.type === "text") return { type: "text", text: block.text };
  return toAnthropic([{ role: "user", content: [block] }]).messages[0]!.content[0] as AnthropicBlock;
}
