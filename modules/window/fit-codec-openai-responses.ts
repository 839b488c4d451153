/**
 * OpenAI Responses input items (`input` of POST /responses; or `{ instructions?, input }`). An
 * assistant turn — consecutive `reasoning`, assistant `message` and `function_call` items — is
 * one stored assistant message (fromOpenAIResponses reads it so); every other item is one message.
 * The last group stays open while the array may still grow it (a new function_call after it).
 * A truncated `function_call_output` is the caller's item with `output` replaced; a truncated
 * prompt the caller's item with `content` replaced; a made-up result is a `function_call_output`.
 */
import { fromOpenAIResponses, toOpenAIResponses, type ResponsesItem } from "@amplifier-ts/adapters";
import type { Message } from "@amplifier-ts/contracts";
import { cachedRead, relocated, textOfContent, type FormatCodec, type Group, type ReadGroup, type SentPart } from "./fit-codec.js";

/** Each item's messages, by identity, shared by every fitter (fit-codec.ts, cachedRead): the same objects convert to the same messages, whose token counts are cached. */
const cache = new WeakMap<object, readonly Message[]>();
/** An assistant turn's message, by its first item, with the items it was read from (a hit needs the very same items). */
const turns = new WeakMap<object, { readonly items: readonly unknown[]; readonly messages: readonly Message[] }>();

export function openAIResponsesCodec(): FormatCodec {
  const names = new Map<string, string>();
  return {
    format: "openai-responses",
    read(items, index): ReadGroup {
      let end = index;
      while (end < items.length && isAssistantItem(items[end])) end++;
      if (end > index) {
        const turn = items.slice(index, end);
        const hit = turns.get(turn[0] as object);
        let messages: readonly Message[];
        if (hit && hit.items.length === turn.length && hit.items.every((item, i) => item === turn[i])) messages = hit.messages;
        else {
          try {
            messages = fromOpenAIResponses(turn as ResponsesItem[]);
          } catch (error) {
            throw relocated(error, index);
          }
          turns.set(turn[0] as object, { items: turn, messages });
        }
        for (const call of messages[0]?.tool_calls ?? []) names.set(call.id, call.function.name);
        return { count: end - index, messages, open: end === items.length };
      }
      let messages = cachedRead(cache, items, index, (item) => fromOpenAIResponses([item as ResponsesItem]));
      const message = messages[0];
      if (message?.role === "tool" && message.name === undefined && names.has(message.tool_call_id!)) {
        messages = [{ ...message, name: names.get(message.tool_call_id!)! }];
        cache.set(items[index] as object, messages);
      }
      return { count: 1, messages };
    },
    rewrite(items, group: Group, sent: readonly SentPart[]) {
      const message = sent[0]!.message;
      if (group.count === 1) {
        const item = items[group.first] as Record<string, unknown>;
        if (item.type === "function_call_output") return [{ ...item, output: textOfContent(message.content) }];
        if (message.role === "user" && typeof message.content === "string") return [{ ...item, content: message.content }];
      }
      return toOpenAIResponses(sent.map((s) => s.message)).input;
    },
    create(message) {
      if (message.role === "tool") return [{ type: "function_call_output", call_id: message.tool_call_id!, output: textOfContent(message.content) }];
      if (message.role === "system" || message.role === "developer") return [{ type: "message", role: message.role, content: textOfContent(message.content) }];
      return toOpenAIResponses([{ role: message.role, content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) }]).input;
    },
  };
}

function isAssistantItem(item: unknown): boolean {
  const i = item as { type?: unknown; role?: unknown } | null;
  if (i === null || typeof i !== "object") return false;
  return i.type === "reasoning" || i.type === "function_call" || (i.role === "assistant" && (i.type === undefined || i.type === "message"));
}
