/**
 * The one reading of a window's tool pairing that every `to…` adapter converts from.
 *
 * | input                                                         | entry                           |
 * |---------------------------------------------------------------|---------------------------------|
 * | an assistant message with calls (`tool_calls[]` and/or `tool_use` blocks) | `call`, with the results that follow it |
 * | the result carriers right after it (`tool` messages; user messages with `tool_result` blocks) | its `results`, in stored order; their other blocks (text, images) become `trailing`, kept after the results |
 * | anything else                                                 | `message`                       |
 *
 * Rules (contracts/ADAPTERS.md, "Pairing"): every call is followed, before any other message, by
 * exactly one result per id (ORPHAN_RESULT for a result no pending call of its id awaits — an
 * orphan or a second answer; MISSING_RESULT, naming the call's index and the ids, when another
 * message or the end comes first). The messages are checked against the Message contract first
 * (INVALID_INPUT, UNKNOWN_BLOCK for a block type the contract does not know).
 */
import { callsOf, validateMessage, isAmplifierError, type CallRef, type ContentBlock, type ImageBlock, type Message, type TextBlock } from "@amplifier-ts/contracts";
import { adapterError, type AdapterName } from "./adapter-errors.js";

export interface ToolResultPart {
  readonly id: string;
  /** Index of the carrier message in the input. */
  readonly index: number;
  readonly content: string | readonly (TextBlock | ImageBlock)[];
  readonly isError: boolean;
  /** The tool's name: the call's. */
  readonly name: string;
}

export interface TrailingPart {
  readonly index: number;
  readonly block: ContentBlock;
}

export type ToolTurnEntry =
  | { readonly kind: "message"; readonly index: number; readonly message: Message }
  | {
      readonly kind: "call";
      readonly index: number;
      readonly message: Message;
      readonly calls: readonly CallRef[];
      readonly results: readonly ToolResultPart[];
      readonly trailing: readonly TrailingPart[];
    };

const KNOWN_BLOCKS = new Set(["text", "image", "image_url", "tool_use", "tool_result", "thinking", "redacted_thinking", "compaction"]);

/** Checks `messages` (see the table above) and reads them as entries. */
export function readToolTurns(messages: readonly Message[], adapter: AdapterName): ToolTurnEntry[] {
  checkMessages(messages, adapter);
  const entries: ToolTurnEntry[] = [];
  let i = 0;
  while (i < messages.length) {
    const message = messages[i]!;
    const calls = callsOf(message);
    if (calls.length === 0) {
      const stray = resultsOf(message, i)[0];
      if (stray) throw orphan(adapter, i, stray.id, "no call before it awaits this id");
      entries.push({ kind: "message", index: i, message });
      i++;
      continue;
    }
    const callIndex = i;
    const names = new Map(calls.map((call) => [call.id, call.name]));
    if (names.size !== calls.length) {
      throw adapterError("INVALID_INPUT", { adapter, direction: "to", index: i, path: `messages[${i}]`, rule: "the ids of one message's tool calls are distinct", given: calls.map((c) => c.id) });
    }
    const pending = new Set(names.keys());
    const results: ToolResultPart[] = [];
    const trailing: TrailingPart[] = [];
    i++;
    while (pending.size > 0 && i < messages.length) {
      const carrier = messages[i]!;
      const found = resultsOf(carrier, i);
      if (found.length === 0) break;
      for (const result of found) {
        if (!pending.delete(result.id)) throw orphan(adapter, i, result.id, `the call at messages[${callIndex}] does not await it (not its id, or answered already)`);
        results.push({ ...result, name: names.get(result.id)! });
      }
      if (carrier.role === "user" && Array.isArray(carrier.content)) {
        for (const block of carrier.content) if (block.type !== "tool_result") trailing.push({ index: i, block });
      }
      i++;
    }
    if (pending.size > 0) {
      throw adapterError("MISSING_RESULT", {
        adapter,
        direction: "to",
        index: callIndex,
        path: `messages[${callIndex}]`,
        rule: `every tool call is followed, before any other message, by its result; missing: ${[...pending].join(", ")}`,
        expected: "a result for each call id, right after the call",
        given: [...pending],
      });
    }
    entries.push({ kind: "call", index: callIndex, message, calls, results, trailing });
  }
  return entries;
}

/** The results a message carries: a tool message's, or a user message's tool_result blocks. */
function resultsOf(message: Message, index: number): Omit<ToolResultPart, "name">[] {
  if (message.role === "tool") return [{ id: message.tool_call_id!, index, content: contentAsResult(message.content), isError: false }];
  if (message.role !== "user" || !Array.isArray(message.content)) return [];
  const out: Omit<ToolResultPart, "name">[] = [];
  for (const block of message.content) {
    if (block.type === "tool_result") out.push({ id: block.tool_use_id, index, content: block.content ?? "", isError: block.is_error === true });
  }
  return out;
}

/** A tool message's content as result content: text and images only. */
function contentAsResult(content: Message["content"]): string | (TextBlock | ImageBlock)[] {
  if (typeof content === "string") return content;
  if (content === null) return "";
  return content.filter((block): block is TextBlock | ImageBlock => block.type === "text" || block.type === "image");
}

function orphan(adapter: AdapterName, index: number, id: string, why: string) {
  return adapterError("ORPHAN_RESULT", {
    adapter,
    direction: "to",
    index,
    path: `messages[${index}]`,
    rule: `a tool result follows its call directly; ${why}`,
    expected: "a result right after the assistant message that makes the call",
    given: id,
  });
}

function checkMessages(messages: readonly Message[], adapter: AdapterName): void {
  if (!Array.isArray(messages)) {
    throw adapterError("INVALID_INPUT", { adapter, direction: "to", index: -1, path: "messages", rule: "the input is an array of messages", expected: "Message[]", given: messages });
  }
  messages.forEach((message, index) => {
    const content = (message as { content?: unknown } | null)?.content;
    if (Array.isArray(content)) {
      content.forEach((block: unknown, b) => {
        const type = (block as { type?: unknown } | null)?.type;
        if (typeof type !== "string" || !KNOWN_BLOCKS.has(type)) {
          throw adapterError("UNKNOWN_BLOCK", { adapter, direction: "to", index, path: `messages[${index}].content[${b}]`, rule: "content blocks are of a type the Message contract defines", expected: [...KNOWN_BLOCKS].join(" | "), given: type });
        }
      });
    }
    try {
      validateMessage(message, `messages[${index}]`);
    } catch (error) {
      if (!isAmplifierError(error)) throw error;
      throw adapterError("INVALID_INPUT", { adapter, direction: "to", index, path: error.details.path ?? `messages[${index}]`, rule: `each message matches the Message contract: ${error.message}`, expected: error.details.expected, given: error.details.given });
    }
  });
}
