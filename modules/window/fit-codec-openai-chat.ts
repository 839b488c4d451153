/**
 * OpenAI Chat Completions messages (`ChatCompletionMessageParam[]`): one item, one stored message
 * (fromOpenAIChat, a `tool` message named after its call as the whole-array conversion names it).
 * A truncated result or prompt is the caller's item with `content` replaced; made-up messages are
 * `{ role: "tool", tool_call_id, content }` and `{ role: "user", content }`.
 */
import { fromOpenAIChat, toOpenAIChat, type ChatMessage } from "@amplifier-ts/adapters";
import type { ContentBlock, Message } from "@amplifier-ts/contracts";
import { cachedRead, textOfContent, type FormatCodec, type Group, type ReadGroup, type SentPart } from "./fit-codec.js";

/** Each item's messages, by identity, shared by every fitter (fit-codec.ts, cachedRead): the same objects convert to the same messages, whose token counts are cached. */
const cache = new WeakMap<object, readonly Message[]>();

export function openAIChatCodec(): FormatCodec {
  const names = new Map<string, string>();
  return {
    format: "openai-chat",
    read(items, index): ReadGroup {
      const item = items[index] as ChatMessage;
      let messages = cachedRead(cache, items, index, (i) => fromOpenAIChat([i as ChatMessage]));
      const message = messages[0]!;
      if (message.role === "tool" && message.name === undefined) {
        const name = names.get(message.tool_call_id!);
        if (name !== undefined) {
          messages = [{ ...message, name }];
          cache.set(item, messages);
        }
      }
      for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
      return { count: 1, messages };
    },
    rewrite(items, group: Group, sent: readonly SentPart[]) {
      const item = items[group.first] as ChatMessage;
      const message = sent[0]!.message;
      return [{ ...item, content: chatContent(message.content) }];
    },
    create(message) {
      if (message.role === "tool") return [{ role: "tool", tool_call_id: message.tool_call_id!, content: textOfContent(message.content) }];
      return toOpenAIChat([{ role: message.role, content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) }]).messages;
    },
  };
}

/** A window message's content as Chat content: text stays a string; blocks become text and image_url parts. */
function chatContent(content: Message["content"]): ChatMessage["content"] {
  if (typeof content === "string" || content === null) return content ?? "";
  const parts: ({ type: "text"; text: string } | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" } })[] = [];
  for (const block of content as readonly ContentBlock[]) {
    if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (block.type === "image_url") parts.push({ type: "image_url", image_url: block.image_url });
  }
  return parts as ChatMessage["content"];
}
