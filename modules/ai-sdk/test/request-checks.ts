/**
 * Checks on what the fake server RECEIVED (the JSON bodies the real @ai-sdk/openai client sent),
 * made without the integration's code:
 * - `requestTokens`: the body's messages (Chat `messages`, or Responses `instructions` + `input`)
 *   read by @amplifier-ts/adapters and counted with @amplifier-ts/tokens' counter for the model —
 *   messages + reply priming + the body's own `tools`. Each converted message is keyed by its JSON
 *   (metadata.id) only so a history counted again hits the counter's cache; the cache proves every
 *   hit against the message's content, so the figure is the content's.
 * - `itemsOf`: the messages / input items of a body, for the prefix share and pair checks.
 * - `prefixShare`: the share of the previous request's items that the next request starts with.
 */
import type { Message, ToolDefinition } from "@amplifier-ts/contracts";
import { fromApiTool, fromOpenAIChat, fromOpenAIResponses, type ChatMessage, type ChatTool, type ResponsesItem, type ResponsesTool } from "@amplifier-ts/adapters";
import { getTokenCounter } from "@amplifier-ts/tokens";
import type { Received } from "../../../test/providers/fake-api-server.js";

export function itemsOf(received: Received): unknown[] {
  return (received.api === "chat" ? received.body.messages : received.body.input) as unknown[];
}

export function requestTokens(received: Received, model: string): number {
  const counter = getTokenCounter(model);
  const messages: Message[] = [];
  if (received.api === "chat") {
    messages.push(...keyed(fromOpenAIChat(itemsOf(received) as ChatMessage[])));
  } else {
    const instructions = received.body.instructions;
    if (typeof instructions === "string") messages.push({ role: "system", content: instructions });
    messages.push(...keyed(fromOpenAIResponses(itemsOf(received) as ResponsesItem[])));
  }
  const tools = ((received.body.tools as (ChatTool | ResponsesTool)[] | undefined) ?? []).map((t): ToolDefinition => fromApiTool(t));
  return counter.countRequest(messages, tools);
}

function keyed(messages: Message[]): Message[] {
  // One key per converted message: its own JSON (role, content, calls), so equal messages share a cached count.
  return messages.map((m) => ({ ...m, metadata: { ...m.metadata, id: JSON.stringify([m.role, m.content, m.tool_calls, m.tool_call_id]) } }));
}

export function prefixShare(previous: readonly unknown[], next: readonly unknown[]): number {
  if (previous.length === 0) return 1;
  let i = 0;
  while (i < previous.length && i < next.length && JSON.stringify(previous[i]) === JSON.stringify(next[i])) i++;
  return i / previous.length;
}

/** Call ids sent, and result ids sent, of one request body (Chat or Responses). */
export function pairsOf(received: Received): { calls: string[]; results: string[] } {
  const calls: string[] = [];
  const results: string[] = [];
  for (const item of itemsOf(received) as Record<string, unknown>[]) {
    if (received.api === "chat") {
      for (const call of (item.tool_calls as { id: string }[] | undefined) ?? []) calls.push(call.id);
      if (item.role === "tool") results.push(String(item.tool_call_id));
    } else if (item.type === "function_call") calls.push(String(item.call_id));
    else if (item.type === "function_call_output") results.push(String(item.call_id));
  }
  return { calls, results };
}
