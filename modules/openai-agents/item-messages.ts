import type { AgentInputItem } from "@openai/agents-core";
import type { ContentBlock, Message, ToolCall } from "@amplifier-ts/contracts";
import { callIdOf, kindOf } from "./agent-items.js";
import { argumentsOf, contentBlocksOf, outputTextOf } from "./item-text.js";

/**
 * The session's items seen as our Messages, for counting and fitting (the items stay what is
 * stored and returned). One message per item, except the model's answer: consecutive
 * `assistant` and `call` items (reasoning, text, calls) form ONE assistant message, its calls as
 * `tool_calls` — so the window engine sees the call and its results as one unit, and a reasoning
 * item stays with the calls and text it precedes.
 *
 * | items | message |
 * |---|---|
 * | user | `user`, the content parts as text / image blocks |
 * | system | `system` with `metadata.scope: "turn"` (conversation, cut with its turn, order kept) |
 * | reasoning, assistant message, hosted call, … then calls | one `assistant`: thinking + text blocks, `tool_calls` |
 * | a result | `tool` with `tool_call_id` |
 * | compaction | `system` (an instruction: kept, first); `fitted` starts at the latest one, as the Runner does (`trimToLatestCompaction`) |
 *
 * Appending is O(new items): only the last answer can grow, and only its message is rebuilt.
 * Each message's `metadata.id` is `g<first item index>`, so a window copy (a truncated result)
 * finds its items again.
 */
export interface ItemRange {
  readonly start: number;
  readonly end: number;
}

export class ItemMessages {
  readonly items: AgentInputItem[] = [];
  readonly messages: Message[] = [];
  readonly #ranges: ItemRange[] = [];
  readonly #rangeOf = new Map<string, ItemRange>();
  /** The last message is an answer that further assistant/call items extend. */
  #openAnswer = false;
  /** Position of the message of the latest compaction item (0 when there is none). */
  #from = 0;

  constructor(items: readonly AgentInputItem[] = []) {
    this.append(items);
  }

  append(items: readonly AgentInputItem[]): void {
    for (const item of items) {
      const index = this.items.length;
      this.items.push(item);
      const kind = kindOf(item);
      if (kind === "assistant" || kind === "call") {
        if (this.#openAnswer) {
          const last = this.#ranges.length - 1;
          this.#set(last, { start: this.#ranges[last]!.start, end: index + 1 });
          continue;
        }
        this.#openAnswer = true;
      } else this.#openAnswer = false;
      if (kind === "compaction") this.#from = this.#ranges.length;
      this.#set(this.#ranges.length, { start: index, end: index + 1 });
    }
  }

  /** The messages the model is sent from: all of them, or from the latest compaction item on. */
  get fitted(): readonly Message[] {
    return this.#from === 0 ? this.messages : this.messages.slice(this.#from);
  }

  /** The items a message of `messages` (or a window copy of one, by its id) stands for. */
  rangeOf(message: Message): ItemRange | undefined {
    const id = message.metadata?.id;
    return typeof id === "string" ? this.#rangeOf.get(id) : undefined;
  }

  /** The call item of `callId` (for a result the window had to make up). */
  callItem(callId: string): AgentInputItem | undefined {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const item = this.items[i]!;
      if (kindOf(item) === "call" && callIdOf(item) === callId) return item;
    }
    return undefined;
  }

  #set(position: number, range: ItemRange): void {
    this.#ranges[position] = range;
    const message = messageOf(this.items.slice(range.start, range.end), `g${range.start}`);
    this.messages[position] = message;
    this.#rangeOf.set(`g${range.start}`, range);
  }
}

/** One item as a Message of its own (the stored form's readable part, stored-items.ts). */
export function itemMessage(item: AgentInputItem, id: string): Message {
  return messageOf([item], id);
}

function messageOf(items: readonly AgentInputItem[], id: string): Message {
  const first = items[0]!;
  const metadata = { id };
  switch (kindOf(first)) {
    case "user":
      return { role: "user", content: nonEmpty(contentBlocksOf(first)), metadata };
    case "system":
      return { role: "system", content: nonEmpty(contentBlocksOf(first)), metadata: { ...metadata, scope: "turn" } };
    case "compaction":
      return { role: "system", content: nonEmpty(contentBlocksOf(first)), metadata };
    case "result": {
      const name = (first as { name?: unknown }).name;
      return { role: "tool", tool_call_id: callIdOf(first)!, name: typeof name === "string" && name !== "" ? name : String((first as { type?: unknown }).type), content: outputTextOf(first), metadata };
    }
    default:
      return answerOf(items, metadata);
  }
}

function answerOf(items: readonly AgentInputItem[], metadata: { id: string }): Message {
  const blocks: ContentBlock[] = [];
  const calls: ToolCall[] = [];
  for (const item of items) {
    if (kindOf(item) === "call") {
      const name = (item as { name?: unknown }).name;
      calls.push({ id: callIdOf(item)!, type: "function", function: { name: typeof name === "string" && name !== "" ? name : String((item as { type?: unknown }).type), arguments: argumentsOf(item) } });
    } else blocks.push(...contentBlocksOf(item));
  }
  if (calls.length === 0) return { role: "assistant", content: nonEmpty(blocks), metadata };
  return { role: "assistant", content: blocks.length > 0 ? blocks : null, tool_calls: calls, metadata };
}

/** A message needs some content; an item without any text counts as an empty string. */
function nonEmpty(blocks: ContentBlock[]): string | ContentBlock[] {
  return blocks.length > 0 ? blocks : "";
}
