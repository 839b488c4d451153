/**
 * fromLangChain / toLangChain against the real @langchain/core classes: read by duck typing (the
 * adapters import no LangChain package), and the fields written back are what LangChain's own
 * coercion turns into the same classes.
 */
import { AIMessage, coerceMessageLikeToMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { fromLangChain, toLangChain, type LangChainMessageLike } from "../../modules/adapters/index.js";
import { isAmplifierError } from "../../contracts/index.js";

const conversation = () => [
  new SystemMessage("Be brief."),
  new HumanMessage({ content: [{ type: "text", text: "Look" }, { type: "image_url", image_url: { url: "https://x.test/a.png" } }], name: "ann" }),
  new AIMessage({ content: [{ type: "text", text: "Reading." }, { type: "tool_use", id: "c1", name: "read_file", input: { path: "/a" } }], tool_calls: [{ id: "c1", name: "read_file", args: { path: "/a" }, type: "tool_call" }] }),
  new ToolMessage({ content: "file text", tool_call_id: "c1" }),
  new AIMessage({ content: [{ type: "thinking", thinking: "hm", signature: "sig" }, { type: "text", text: "Done." }, { type: "citation", cited: "x" }] }),
];

describe("LangChain messages ⇄ stored messages", () => {
  it("reads each class; a tool_use block repeating a tool call is not a second call; a ToolMessage gets its call's name", () => {
    const stored = fromLangChain(conversation() as unknown as LangChainMessageLike[]);
    expect(stored.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    expect(stored[1]).toEqual({ role: "user", name: "ann", content: [{ type: "text", text: "Look" }, { type: "image_url", image_url: { url: "https://x.test/a.png" } }] });
    expect(stored[2]!.tool_calls).toEqual([{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"/a"}' } }]);
    expect(stored[2]!.content).toEqual([{ type: "text", text: "Reading." }]);
    expect(stored[3]).toEqual({ role: "tool", tool_call_id: "c1", name: "read_file", content: "file text" });
    // A provider's own block is kept as its JSON, so it is counted.
    expect(stored[4]!.content).toEqual([{ type: "thinking", thinking: "hm", signature: "sig" }, { type: "text", text: "Done." }, { type: "text", text: '{"type":"citation","cited":"x"}' }]);
  });

  it("writes message-likes LangChain coerces back into the same classes, calls and results included", () => {
    const stored = fromLangChain(conversation() as unknown as LangChainMessageLike[]);
    const coerced = toLangChain(stored).map((fields) => coerceMessageLikeToMessage(fields as never));
    expect(coerced.map((m) => m.constructor.name)).toEqual(["SystemMessage", "HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]);
    expect((coerced[2] as AIMessage).tool_calls?.map((c) => [c.id, c.name, c.args])).toEqual([["c1", "read_file", { path: "/a" }]]);
    expect((coerced[3] as ToolMessage).tool_call_id).toBe("c1");
    expect(fromLangChain(coerced as unknown as LangChainMessageLike[])).toEqual(stored);
  });

  it("refuses what is no LangChain message, and a call without an id, naming the index", () => {
    for (const bad of [[new HumanMessage("a"), { foo: 1 }], [new AIMessage({ content: "", tool_calls: [{ name: "f", args: {} }] })]]) {
      try {
        fromLangChain(bad as unknown as LangChainMessageLike[]);
        expect.unreachable();
      } catch (error) {
        expect(isAmplifierError(error) && error.code).toBe("ADAPTER/INVALID_INPUT");
        expect((error as { details: { index: number } }).details.index).toBe(bad.length - 1);
      }
    }
  });
});
