/**
 * What of a message is searchable: its text, tool calls (name + arguments) and tool results, in
 * both OpenAI and Anthropic styles. Images and redacted thinking carry no text; thinking is left
 * out (it is the model's scratchpad, not the conversation). Very long texts are capped: a tool
 * result of a megabyte must not make every addMessage slow, and its head names what it is.
 */
import type { Message } from "../../contracts/generated/message.js";

/** Characters of one message indexed at most. */
export const MAX_INDEXED_CHARS = 8_000;

export function searchableText(message: Message): string {
  const parts: string[] = [];
  const content = message.content;
  if (typeof content === "string") parts.push(content);
  else if (Array.isArray(content)) {
    for (const block of content) {
      if (block.type === "text") parts.push(block.text);
      else if (block.type === "tool_use") parts.push(block.name, JSON.stringify(block.input ?? {}));
      else if (block.type === "tool_result") {
        if (typeof block.content === "string") parts.push(block.content);
        else if (Array.isArray(block.content)) for (const b of block.content) if (b.type === "text") parts.push(b.text);
      }
    }
  }
  for (const call of message.tool_calls ?? []) parts.push(call.function.name, call.function.arguments);
  if (message.role === "tool" && typeof message.name === "string") parts.push(message.name);
  const text = parts.join("\n");
  return text.length > MAX_INDEXED_CHARS ? text.slice(0, MAX_INDEXED_CHARS) : text;
}

/**
 * A message's searchable text in two parts: `prose` — what a person or the model wrote (text
 * outside fenced code blocks); `code` — tool calls (name + arguments), tool results and fenced
 * code blocks. Indexed as two fields, so a long log pasted under a one-line statement does not
 * make the statement "long" for BM25 (each field is length-normalised on its own). Both capped
 * together at MAX_INDEXED_CHARS, prose first.
 */
export function searchableParts(message: Message): { prose: string; code: string } {
  const prose: string[] = [];
  const code: string[] = [];
  const text = (t: string) => {
    if (!t.includes("```")) return void prose.push(t);
    let last = 0;
    for (const m of t.matchAll(FENCED)) {
      prose.push(t.slice(last, m.index));
      code.push(m[0]);
      last = m.index + m[0].length;
    }
    prose.push(t.slice(last));
  };
  const content = message.content;
  const isTool = message.role === "tool";
  if (typeof content === "string") (isTool ? code.push(content) : text(content));
  else if (Array.isArray(content)) {
    for (const block of content) {
      if (block.type === "text") (isTool ? code.push(block.text) : text(block.text));
      else if (block.type === "tool_use") code.push(block.name, JSON.stringify(block.input ?? {}));
      else if (block.type === "tool_result") {
        if (typeof block.content === "string") code.push(block.content);
        else if (Array.isArray(block.content)) for (const b of block.content) if (b.type === "text") code.push(b.text);
      }
    }
  }
  for (const call of message.tool_calls ?? []) code.push(call.function.name, call.function.arguments);
  if (isTool && typeof message.name === "string") code.push(message.name);
  const p = prose.join("\n").slice(0, MAX_INDEXED_CHARS);
  return { prose: p, code: code.join("\n").slice(0, Math.max(0, MAX_INDEXED_CHARS - p.length)) };
}

/** A fenced code block (an unclosed fence runs to the end). Shared with recall-query.ts. */
export const FENCED = /```[\s\S]*?(?:```|$)/g;

/** Names of the tools a message calls or answers (SearchFilter.toolName). */
export function toolNamesOf(message: Message, callNames: ReadonlyMap<string, string>): string[] {
  const names: string[] = [];
  for (const call of message.tool_calls ?? []) names.push(call.function.name);
  if (message.role === "tool") {
    if (typeof message.name === "string") names.push(message.name);
    const called = callNames.get(message.tool_call_id ?? "");
    if (called) names.push(called);
  }
  if (Array.isArray(message.content)) {
    for (const block of message.content) {
      if (block.type === "tool_use") names.push(block.name);
      else if (block.type === "tool_result") {
        const called = callNames.get(block.tool_use_id);
        if (called) names.push(called);
      }
    }
  }
  return names;
}

/** Call id → tool name, for the calls of one message (results name their tool through their call). */
export function recordCallNames(message: Message, into: Map<string, string>): void {
  for (const call of message.tool_calls ?? []) into.set(call.id, call.function.name);
  if (Array.isArray(message.content)) for (const block of message.content) if (block.type === "tool_use") into.set(block.id, block.name);
}
