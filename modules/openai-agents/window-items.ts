import type { AgentInputItem } from "@openai/agents-core";
import type { Message } from "@amplifier-ts/contracts";
import { windowMarkOf } from "@amplifier-ts/window";
import { callIdOf, kindOf } from "./agent-items.js";
import type { ItemMessages } from "./item-messages.js";
import { textOf } from "./item-text.js";

/**
 * The window's messages back as the session's items, in window order:
 *
 * | window message | items |
 * |---|---|
 * | one of the session's messages | the stored items it stands for, unchanged |
 * | a truncated copy (a long tool result or prompt cut to fit) | its items, the result's `output` (the prompt's `content`) replaced by the cut text |
 * | a result made up for a call without one (`interrupted-tool-call`) | a `function_call_result` with that text, for a function call; nothing for other calls (the Runner drops calls without results) |
 * | the placeholder before a kept message (`omitted-history`) | a user item with its text |
 */
export function windowItems(window: readonly Message[], view: ItemMessages): AgentInputItem[] {
  const items: AgentInputItem[] = [];
  for (const message of window) {
    const mark = windowMarkOf(message);
    const range = view.rangeOf(message);
    if (range && !mark?.truncated) {
      for (let i = range.start; i < range.end; i++) items.push(view.items[i]!);
    } else if (range) {
      for (let i = range.start; i < range.end; i++) items.push(truncated(view.items[i]!, message));
    } else if (mark?.synthetic === "interrupted-tool-call" && message.tool_call_id) {
      const call = view.callItem(message.tool_call_id);
      if (call && (call as { type?: unknown }).type === "function_call") {
        items.push({ type: "function_call_result", callId: callIdOf(call)!, name: (call as { name: string }).name, status: "incomplete", output: textOfMessage(message) } as AgentInputItem);
      }
    } else if (mark?.synthetic === "omitted-history") {
      items.push({ role: "user", content: textOfMessage(message) } as AgentInputItem);
    }
  }
  return items;
}

/** The item with the window's cut text in place of its own (results and prompts are what the engine cuts). */
function truncated(item: AgentInputItem, message: Message): AgentInputItem {
  const text = textOfMessage(message);
  if (message.role === "tool" && "output" in item) return { ...item, output: text } as AgentInputItem;
  if (message.role === "user" && "content" in item) return { ...item, content: text } as AgentInputItem;
  return item;
}

function textOfMessage(message: Message): string {
  const content = message.content;
  return typeof content === "string" ? content : content === null ? "" : textOf(content);
}

/**
 * The newest `limit` items at most, starting where a message starts: never a result without its
 * call, nor calls or reasoning cut from the start of their answer (so fewer than `limit` when the
 * limit falls inside an answer and its results).
 */
export function newestItems(items: readonly AgentInputItem[], limit: number): AgentInputItem[] {
  let start = Math.max(0, items.length - limit);
  while (start > 0 && start < items.length && !startsMessage(items, start)) start++;
  return items.slice(start);
}

function startsMessage(items: readonly AgentInputItem[], index: number): boolean {
  const kind = kindOf(items[index]!);
  if (kind === "result") return false;
  if (kind !== "assistant" && kind !== "call") return true;
  const previous = kindOf(items[index - 1]!);
  return previous !== "assistant" && previous !== "call";
}
