import { isDeepStrictEqual } from "node:util";
import type { Message, ToolDefinition } from "@amplifier-ts/contracts";
import { getTokenCounter } from "@amplifier-ts/tokens";

/**
 * Checks of what the fake server received, written from the Responses API request body alone
 * (nothing of the session's own conversion is reused):
 *
 * - `requestTokens`: the request counted with our gpt-4o counter over a conversion of the body
 *   made here — one message per input item (no merging, so the per-message overhead is counted
 *   for every item: the count is at least what the session counted), `instructions` as a system
 *   message, `tools` as tool definitions, plus reply priming (countRequest).
 * - `pairProblems`: every function_call has exactly one function_call_output after it and every
 *   output a call before it; every reasoning item is followed by another item.
 * - `prefixShare`: the share of the previous request's input items the next request starts with.
 */
type Json = Record<string, unknown>;

const counter = getTokenCounter("gpt-4o");

export function requestTokens(body: Json): number {
  if (Array.isArray(body.messages)) return chatRequestTokens(body);
  const messages: Message[] = [];
  if (typeof body.instructions === "string") messages.push({ role: "system", content: body.instructions });
  for (const item of (body.input as Json[]) ?? []) messages.push(itemAsMessage(item));
  const tools: ToolDefinition[] = ((body.tools as Json[] | undefined) ?? []).map((t) => ({
    type: "function",
    function: { name: String(t.name), ...(typeof t.description === "string" ? { description: t.description } : {}), ...(t.parameters ? { parameters: t.parameters as Record<string, unknown> } : {}) },
  }));
  return counter.countRequest(messages, tools);
}

/** A Chat Completions body: its messages are already our shape (role, content, tool_calls, tool_call_id); tools are { type, function }. */
function chatRequestTokens(body: Json): number {
  const messages = (body.messages as Json[]).map((m) => {
    const content = typeof m.content === "string" ? m.content : Array.isArray(m.content) ? (m.content as Json[]).map((p) => String(p.text ?? JSON.stringify(p))).join("\n") : null;
    return { role: m.role, content, ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}), ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}) } as Message;
  });
  return counter.countRequest(messages, (body.tools as ToolDefinition[] | undefined) ?? []);
}

/** The Chat Completions messages as pairing items: a call per tool_calls entry, an output per tool message. */
export function chatPairItems(body: Json): Json[] {
  return (body.messages as Json[]).flatMap((m): Json[] =>
    m.role === "tool" ? [{ type: "function_call_output", call_id: m.tool_call_id }] : Array.isArray(m.tool_calls) ? (m.tool_calls as Json[]).map((c) => ({ type: "function_call", call_id: c.id })) : [m],
  );
}

function itemAsMessage(item: Json): Message {
  switch (item.type) {
    case "function_call":
      return { role: "assistant", content: null, tool_calls: [{ id: String(item.call_id), type: "function", function: { name: String(item.name), arguments: String(item.arguments) } }] };
    case "function_call_output":
      return { role: "tool", tool_call_id: String(item.call_id), content: typeof item.output === "string" ? item.output : JSON.stringify(item.output) };
    case "reasoning":
      return { role: "assistant", content: ((item.summary as Json[]) ?? []).map((s) => String(s.text)).join("\n") + (typeof item.encrypted_content === "string" ? item.encrypted_content : "") };
    default: {
      const content = item.content;
      const text = typeof content === "string" ? content : Array.isArray(content) ? (content as Json[]).map((p) => (typeof p.text === "string" ? p.text : JSON.stringify(p))).join("\n") : JSON.stringify(item);
      const role = item.role === "assistant" || item.role === "system" || item.role === "developer" ? item.role : "user";
      return { role, content: text } as Message;
    }
  }
}

export function pairProblems(input: readonly Json[]): string[] {
  const problems: string[] = [];
  const open = new Map<string, number>();
  const answered = new Set<string>();
  input.forEach((item, i) => {
    if (item.type === "function_call") open.set(String(item.call_id), i);
    if (item.type === "function_call_output") {
      const id = String(item.call_id);
      if (!open.has(id)) problems.push(`input[${i}]: output for ${id} without its call before it`);
      else if (answered.has(id)) problems.push(`input[${i}]: second output for ${id}`);
      answered.add(id);
    }
    if (item.type === "reasoning" && (i === input.length - 1 || input[i + 1]!.type === "reasoning")) problems.push(`input[${i}]: reasoning without the item it precedes`);
  });
  for (const [id, i] of open) if (!answered.has(id)) problems.push(`input[${i}]: call ${id} without its output`);
  return problems;
}

/** Share (0–1) of `previous`'s items that `next` starts with, compared as JSON values. */
export function prefixShare(previous: readonly unknown[], next: readonly unknown[]): number {
  if (previous.length === 0) return 1;
  let i = 0;
  while (i < previous.length && i < next.length && isDeepStrictEqual(previous[i], next[i])) i++;
  return i / previous.length;
}

/**
 * The items without the `id` of function calls: the SDK drops it when it persists a run
 * (`stripTransientCallIds`, with any session), so the next run sends the call without the id it
 * carried inside the run. The model reads no item ids; the prompt is the same.
 */
export function withoutItemIds(input: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return input.map((item) => {
    if (item.type !== "function_call" || !("id" in item)) return item;
    const { id: _id, ...rest } = item;
    return rest;
  });
}
