/**
 * OpenAI Responses input items (`input` of POST /responses; or `{ instructions?, input }`). An
 * assistant turn — consecutive `compaction`, `reasoning`, assistant `message` and `function_call` items — is
 * one stored assistant message (fromOpenAIResponses reads it so); every other item is one message.
 * The last group stays open while the array may still grow it (a new function_call after it).
 * A truncated `function_call_output` is the caller's item with `output` replaced; a truncated
 * prompt the caller's item with `content` replaced; a made-up result is a `function_call_output`.
 * Built-in tools' items (web_search_call, file_search_call, code_interpreter_call, …) belong to the
 * assistant turn and are counted as their JSON; custom tool calls pair like function calls. Other
 * item types (computer_call, local_shell_call, MCP approvals) are refused by the adapter
 * (ADAPTER/UNKNOWN_BLOCK, naming the item's index).
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
            messages = fromOpenAIResponses(turn.map(readable) as ResponsesItem[]);
          } catch (error) {
            throw relocated(error, index);
          }
          turns.set(turn[0] as object, { items: turn, messages });
        }
        for (const call of messages[0]?.tool_calls ?? []) names.set(call.id, call.function.name);
        return { count: end - index, messages, open: end === items.length };
      }
      let messages = cachedRead(cache, items, index, (item) => fromOpenAIResponses([readable(item) as ResponsesItem]));
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
        if (item.type === "function_call_output" || item.type === "custom_tool_call_output") return [{ ...item, output: textOfContent(message.content) }];
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
  return i.type === "compaction" || i.type === "reasoning" || i.type === "function_call" || i.type === "custom_tool_call" || SERVER_ITEMS.has(i.type as string) || (i.role === "assistant" && (i.type === undefined || i.type === "message"));
}

/** Items the model's built-in tools produced: part of the assistant turn, answered by the API itself (no output item of the caller's). */
const SERVER_ITEMS = new Set(["web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call", "mcp_call", "mcp_list_tools", "item_reference"]);

/**
 * An item as the adapter reads it, for counting: a built-in tool's item is assistant text holding
 * its JSON (counted, sent as given); a custom tool's call and output are a function call and its
 * output (paired like one; the output's text truncated like one). Other items are read as they are.
 */
function readable(item: unknown): unknown {
  const i = item as { type?: string; call_id?: string; name?: string; input?: unknown; output?: unknown };
  if (SERVER_ITEMS.has(i?.type ?? "")) return { type: "message", role: "assistant", content: [{ type: "output_text", text: JSON.stringify(item) }] };
  if (i?.type === "custom_tool_call") return { type: "function_call", call_id: i.call_id, name: i.name, arguments: JSON.stringify({ input: i.input }) };
  if (i?.type === "custom_tool_call_output") return { type: "function_call_output", call_id: i.call_id, output: i.output };
  return item;
}
