/**
 * A deterministic, additive stand-in for @amplifier-ts/tokens' TokenCounter: ⌈characters / 4⌉ for text,
 * framing like the real one (3 per message, 4 per tool call, 2 per tool result, 85 per image).
 * Cheap, so properties can run many cases; real-counter tests live beside it.
 */
import type { ContentBlock, Message } from "../../contracts/generated/message.js";
import type { ToolDefinition } from "../../contracts/provider.js";

export interface FakeCounter {
  readonly model: string;
  readonly encoding: string;
  readonly replyPriming: number;
  countText(text: string): number;
  countMessage(message: Message): number;
  countMessages(messages: readonly Message[]): number;
  countTools(tools: readonly ToolDefinition[]): number;
  countRequest(messages: readonly Message[], tools?: readonly ToolDefinition[]): number;
  /** How many times countMessage ran (to prove the assembler does not recount). */
  readonly calls: { messages: number; texts: number };
}

export function fakeCounter(encoding = "fake-chars/4"): FakeCounter {
  const calls = { messages: 0, texts: 0 };
  const text = (t: string) => Math.ceil(t.length / 4);
  const block = (b: ContentBlock): number => {
    switch (b.type) {
      case "text":
        return text(b.text);
      case "tool_use":
        return 4 + text(b.name) + text(JSON.stringify(b.input ?? {}));
      case "tool_result":
        return 2 + (typeof b.content === "string" ? text(b.content) : (b.content ?? []).reduce((s, x) => s + block(x), 0));
      case "thinking":
        return text(b.thinking);
      case "redacted_thinking":
        return text(b.data);
      default:
        return 85;
    }
  };
  const countMessage = (m: Message): number => {
    calls.messages++;
    let n = 3 + text(m.role) + (m.name === undefined ? 0 : 1 + text(m.name));
    if (typeof m.content === "string") n += text(m.content);
    else if (Array.isArray(m.content)) n += m.content.reduce((s, b) => s + block(b), 0) + Math.max(0, m.content.length - 1);
    for (const c of m.tool_calls ?? []) n += 4 + text(c.function.name) + text(c.function.arguments);
    if (m.role === "tool") n += 2;
    return n;
  };
  const countTools = (tools: readonly ToolDefinition[]) => (tools.length === 0 ? 0 : 12 + tools.reduce((s, t) => s + 7 + text(JSON.stringify(t.function)), 0));
  const countMessages = (ms: readonly Message[]) => ms.reduce((s, m) => s + countMessage(m), 0);
  return {
    model: "fake",
    encoding,
    replyPriming: 3,
    calls,
    countText: (t) => {
      calls.texts++;
      return text(t);
    },
    countMessage,
    countMessages,
    countTools,
    countRequest: (ms, tools) => countMessages(ms) + 3 + (tools?.length ? countTools(tools) : 0),
  };
}
