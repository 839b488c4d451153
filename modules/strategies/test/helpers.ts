import type { CompactionContext } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { getTokenCounter } from "@amplifier-ts/tokens";
import { ExplainLog } from "../explain-recorder.js";

export function contextFor(budget = 100_000, explain = new ExplainLog(true)): CompactionContext & { explain: ExplainLog } {
  return { budget, counter: getTokenCounter("gpt-4o"), explain };
}

let seq = 0;
export const user = (text: string, extra: Partial<Message> = {}): Message => ({ role: "user", content: text, metadata: { id: `u${++seq}` }, ...extra });
export const assistant = (text: string): Message => ({ role: "assistant", content: text, metadata: { id: `a${++seq}` } });
export const system = (text: string): Message => ({ role: "system", content: text, metadata: { id: `s${++seq}` } });

/** An OpenAI call with `results` tool messages. */
export function openaiGroup(id: string, ...results: string[]): Message[] {
  return [
    { role: "assistant", content: "", tool_calls: results.map((_, i) => ({ id: `${id}_${i}`, type: "function", function: { name: "read", arguments: "{}" } })), metadata: { id: `call-${id}` } },
    ...results.map((r, i): Message => ({ role: "tool", tool_call_id: `${id}_${i}`, content: r, metadata: { id: `res-${id}-${i}` } })),
  ];
}

/** An Anthropic tool_use + a user message of tool_result blocks. */
export function anthropicGroup(id: string, result: string, isError = false): Message[] {
  return [
    { role: "assistant", content: [{ type: "tool_use", id, name: "grep", input: {} }], metadata: { id: `call-${id}` } },
    { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: result, ...(isError ? { is_error: true } : {}) }], metadata: { id: `res-${id}` } },
  ];
}

export const ids = (ms: readonly Message[]) => ms.map((m) => m.metadata?.id);
