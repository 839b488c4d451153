/**
 * What of a message is searchable: its text, tool calls (name + arguments) and tool results, in
 * both OpenAI and Anthropic styles. Images and redacted thinking carry no text; thinking is left
 * out (it is the model's scratchpad, not the conversation). Very long texts are capped: a tool
 * result of a megabyte must not make every addMessage slow, and its head names what it is.
 */
import type { Message } from "@amplifier-ts/contracts";
import { callArguments, forEachContentPart } from "@amplifier-ts/contracts";

/** Characters of one message indexed at most. */
export const MAX_INDEXED_CHARS = 8_000;

/**
 * Calls `piece` with each searchable piece of a message, in order: `writing` for text a person or
 * the model wrote (text content of a non-tool message — it may hold fenced code), `code` for tool
 * calls (name + arguments), tool results and a tool message's name. The one definition of what is
 * searchable: searchableText joins the pieces, searchableParts splits them into fields.
 */
function forEachPiece(message: Message, piece: (text: string, kind: "writing" | "code") => void): void {
  const isTool = message.role === "tool";
  const text = isTool ? "code" : "writing";
  forEachContentPart(message, {
    text: (t) => piece(t, text),
    toolCall(call) {
      piece(call.name, "code");
      piece(callArguments(call), "code");
    },
    resultText: (t) => piece(t, "code"),
  });
  if (isTool && typeof message.name === "string") piece(message.name, "code");
}

export function searchableText(message: Message): string {
  const parts: string[] = [];
  forEachPiece(message, (text) => void parts.push(text));
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
  forEachPiece(message, (t, kind) => {
    if (kind === "code") return void code.push(t);
    if (!t.includes("```")) return void prose.push(t);
    let last = 0;
    for (const m of t.matchAll(FENCED)) {
      prose.push(t.slice(last, m.index));
      code.push(m[0]);
      last = m.index + m[0].length;
    }
    prose.push(t.slice(last));
  });
  const p = prose.join("\n").slice(0, MAX_INDEXED_CHARS);
  return { prose: p, code: code.join("\n").slice(0, Math.max(0, MAX_INDEXED_CHARS - p.length)) };
}

/** A fenced code block (an unclosed fence runs to the end). Shared with recall-query.ts. */
export const FENCED = /```[\s\S]*?(?:```|$)/g;

/** Names of the tools a message calls or answers (SearchFilter.toolName). */
export function toolNamesOf(message: Message, callNames: ReadonlyMap<string, string>): string[] {
  const openai: string[] = [];
  const blocks: string[] = [];
  forEachContentPart(message, {
    toolCall: (call) => void (call.style === "openai" ? openai : blocks).push(call.name),
    toolResult(block) {
      const called = callNames.get(block.tool_use_id);
      if (called) blocks.push(called);
    },
  });
  if (message.role === "tool") {
    if (typeof message.name === "string") openai.push(message.name);
    const called = callNames.get(message.tool_call_id ?? "");
    if (called) openai.push(called);
  }
  return blocks.length ? [...openai, ...blocks] : openai;
}

/** Call id → tool name, for the calls of one message (results name their tool through their call). */
export function recordCallNames(message: Message, into: Map<string, string>): void {
  const blocks: [string, string][] = [];
  forEachContentPart(message, {
    toolCall: (call) => void (call.style === "openai" ? into.set(call.id, call.name) : blocks.push([call.id, call.name])),
  });
  for (const [id, name] of blocks) into.set(id, name);
}
