import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { callsOf, forEachContentPart, textLength } from "../../contracts/messages/index.js";
import { messageText } from "../../modules/summarizers/message-text.js";
import { searchableText } from "../../modules/search/message-text.js";

// One message with every kind of part, both tool conventions.
const mixed: Message = {
  role: "assistant",
  content: [
    { type: "text", text: "looking" },
    { type: "thinking", thinking: "hmm" },
    { type: "tool_use", id: "b1", name: "grep", input: { q: "x" } },
    { type: "redacted_thinking", data: "zzzz" },
  ],
  tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: '{"p":"a"}' } }],
};

describe("the one walker over a message's content", () => {
  it("visits content parts in content order, then OpenAI tool_calls; redacted thinking carries nothing", () => {
    const seen: string[] = [];
    forEachContentPart(mixed, {
      text: (t) => void seen.push(`text:${t}`),
      thinking: (t) => void seen.push(`thinking:${t}`),
      toolCall: (c) => void seen.push(`call:${c.style}:${c.name}`),
    });
    expect(seen).toEqual(["text:looking", "thinking:hmm", "call:anthropic:grep", "call:openai:read"]);
  });

  it("visits a tool_result block, then each of its texts", () => {
    const seen: string[] = [];
    const results: Message = { role: "user", content: [{ type: "tool_result", tool_use_id: "b1", content: [{ type: "text", text: "one" }, { type: "text", text: "two" }] }] };
    forEachContentPart(results, { toolResult: (b) => void seen.push(`result:${b.tool_use_id}`), resultText: (t) => void seen.push(t) });
    expect(seen).toEqual(["result:b1", "one", "two"]);
  });

  it("its readers keep their documented orders: calls OpenAI first, text lengths, search and summary text", () => {
    expect(callsOf(mixed).map((c) => c.id)).toEqual(["c1", "b1"]);
    expect(textLength(mixed)).toBe("looking".length + "hmm".length + "grep".length + '{"q":"x"}'.length + "read".length + '{"p":"a"}'.length);
    expect(searchableText(mixed)).toBe(["looking", "grep", '{"q":"x"}', "read", '{"p":"a"}'].join("\n"));
    expect(messageText(mixed).toolCalls).toEqual(['read({"p":"a"})', 'grep({"q":"x"})']);
  });
});
