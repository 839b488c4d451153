/**
 * The documented counting rules of contracts/TOKENS.md, one by one. A word-counting tokenizer
 * (one token per word) makes every expected figure computable by hand; the format constants
 * are the cl100k ones: 3 per message, name +1, priming 3, tool call +4, tool result +2,
 * +1 per content block after the first.
 */
import { describe, expect, it } from "vitest";
import { getTokenCounter } from "../index.js";
import { isAmplifierError } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { wordTokenizer } from "./fixtures.js";

const counter = (model = "gpt-4o") => getTokenCounter(model, { tokenizer: wordTokenizer() });
const count = (message: Message, model?: string) => counter(model).countMessage(message);

describe("message framing", () => {
  it("string content: 3 + role + content", () => {
    expect(count({ role: "user", content: "a b c" })).toBe(3 + 1 + 3);
  });

  it("null content counts nothing beyond the framing", () => {
    expect(count({ role: "assistant", content: null })).toBe(3 + 1);
  });

  it("a name adds its tokens + 1", () => {
    expect(count({ role: "user", name: "bob", content: "hi" })).toBe(3 + 1 + (1 + 1) + 1);
  });

  it("every role is counted by its own tokens (developer included)", () => {
    for (const role of ["system", "developer", "user", "assistant"] as const) {
      expect(count({ role, content: "x" })).toBe(3 + 1 + 1);
    }
  });

  it("reply priming is 3, once per request", () => {
    const c = counter();
    expect(c.replyPriming).toBe(3);
    expect(c.countRequest([])).toBe(3);
  });
});

describe("content blocks", () => {
  it("text blocks: their text, +1 per block after the first", () => {
    expect(count({ role: "user", content: [{ type: "text", text: "a b" }, { type: "text", text: "c" }] })).toBe(3 + 1 + 2 + 1 + 1);
  });

  it("an empty block list counts nothing beyond the framing", () => {
    expect(count({ role: "user", content: [] })).toBe(4);
  });

  it("thinking blocks count as text; the signature is not counted", () => {
    const message: Message = { role: "assistant", content: [{ type: "thinking", thinking: "let me think", signature: "s1 s2 s3 s4" }] };
    expect(count(message)).toBe(3 + 1 + 3);
  });

  it("redacted_thinking counts ⌈data.length / 4⌉", () => {
    expect(count({ role: "assistant", content: [{ type: "redacted_thinking", data: "x".repeat(10) }] })).toBe(3 + 1 + 3);
    expect(count({ role: "assistant", content: [{ type: "redacted_thinking", data: "x".repeat(400) }] })).toBe(3 + 1 + 100);
  });
});

describe("tool calls and results", () => {
  it("OpenAI tool_calls: +4 per call + name + arguments; ids are not counted", () => {
    const call = (id: string) => ({ id, type: "function" as const, function: { name: "f", arguments: '{"x": 1}' } });
    const message: Message = { role: "assistant", content: null, tool_calls: [call("call_1 a b c"), call("call_2")] };
    expect(count(message)).toBe(3 + 1 + 2 * (4 + 1 + 2));
  });

  it("tool messages: content + 2; tool_call_id is not counted", () => {
    expect(count({ role: "tool", tool_call_id: "call one two three", content: "ok" })).toBe(3 + 1 + 1 + 2);
  });

  it("Anthropic tool_use blocks: +4 + name + compact JSON of the input", () => {
    const message: Message = {
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_01 x y", name: "grep", input: { pattern: "a b" } }],
    };
    // '{"pattern":"a b"}' is two words
    expect(count(message)).toBe(3 + 1 + (4 + 1 + 2));
  });

  it("Anthropic tool_result blocks: +2 + content (string or text/image blocks)", () => {
    const asString: Message = { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "x y z" }] };
    expect(count(asString)).toBe(3 + 1 + 2 + 3);
    const asBlocks: Message = {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "t",
          content: [{ type: "text", text: "a" }, { type: "image", width: 512, height: 512 }],
        },
      ],
    };
    expect(count(asBlocks)).toBe(3 + 1 + 2 + (1 + 255 + 1));
    const empty: Message = { role: "user", content: [{ type: "tool_result", tool_use_id: "t" }] };
    expect(count(empty)).toBe(3 + 1 + 2);
  });
});

describe("images are priced by the model family's rule", () => {
  const image = (width?: number, height?: number): Message => ({
    role: "user",
    content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA ".repeat(1000) }, ...(width ? { width, height } : {}) }],
  });
  const imageUrl = (detail: "low" | "high" | "auto", width?: number, height?: number): Message => ({
    role: "user",
    content: [{ type: "image_url", image_url: { url: "https://example.com/a b c.png", detail }, ...(width ? { width, height } : {}) }],
  });

  it("OpenAI: tile formula; low detail = 85; the bytes and URL are never text", () => {
    expect(count(image(1024, 1024))).toBe(4 + 765);
    expect(count(imageUrl("high", 2048, 4096))).toBe(4 + 1105);
    expect(count(imageUrl("low", 4096, 8192))).toBe(4 + 85);
  });

  it("OpenAI gpt-4o-mini uses its own tile prices (2833 + 5667 per tile)", () => {
    expect(count(imageUrl("low", 100, 100), "gpt-4o-mini")).toBe(4 + 2833);
    expect(count(imageUrl("high", 512, 512), "gpt-4o-mini")).toBe(4 + 2833 + 5667);
  });

  it("Anthropic: ⌈w·h/750⌉ after the resize; detail is ignored", () => {
    expect(count(image(1000, 1000), "claude-sonnet-4")).toBe(4 + 1334);
    expect(count(imageUrl("low", 1000, 1000), "claude-sonnet-4")).toBe(4 + 1334);
    expect(count(image(4000, 4000), "claude-sonnet-4")).toBe(4 + 1600);
  });

  it("Gemini: 258 per 768-px tile, 258 for a small image", () => {
    expect(count(image(300, 300), "gemini-2.5-pro")).toBe(4 + 258);
    expect(count(image(1000, 1000), "gemini-2.5-pro")).toBe(4 + 4 * 258);
  });

  it("an image without dimensions costs the documented default", () => {
    expect(count(image())).toBe(4 + 1445);
    expect(count(imageUrl("auto"))).toBe(4 + 1445);
    expect(count(imageUrl("low"))).toBe(4 + 85);
    expect(count(image(), "claude-opus-4")).toBe(4 + 1600);
    expect(count(image(), "gemini-2.0-flash")).toBe(4 + 1032);
  });
});

describe("metadata is never counted", () => {
  it("a message counts the same with or without metadata, and metadata text is never tokenized", () => {
    const tokenizer = wordTokenizer();
    const c = getTokenCounter("gpt-4o", { tokenizer });
    const bare: Message = { role: "user", content: "hello there" };
    const withMeta: Message = {
      ...bare,
      metadata: { id: "m1", timestamp: "2025-01-01T00:00:00Z", critical: true, source: "SECRET WORDS HERE", summary: { covers: ["a", "b"] } },
    };
    expect(c.countMessage(withMeta)).toBe(c.countMessage(bare));
    expect(tokenizer.calls.some((text) => text.includes("SECRET") || text.includes("m1"))).toBe(false);
  });
});

describe("malformed messages are INVALID_MESSAGE naming the field", () => {
  const cases: Array<[string, unknown, string]> = [
    ["unknown role", { role: "robot", content: "x" }, "message.role"],
    ["content of the wrong type", { role: "user", content: 5 }, "message.content"],
    ["a name that is not a string", { role: "user", name: 3, content: "x" }, "message.name"],
    ["text block without text", { role: "user", content: [{ type: "text" }] }, "message.content[0].text"],
    ["unknown block type", { role: "user", content: [{ type: "text", text: "a" }, { type: "video" }] }, "message.content[1].type"],
    ["tool call without arguments", { role: "assistant", content: null, tool_calls: [{ id: "a", type: "function", function: { name: "f" } }] }, "message.tool_calls[0].function"],
    ["tool_calls not an array", { role: "assistant", content: null, tool_calls: {} }, "message.tool_calls"],
    ["bad image detail", { role: "user", content: [{ type: "image_url", image_url: { url: "u", detail: "ultra" } }] }, "message.content[0].image_url.detail"],
    ["tool_result with a tool_use inside", { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "tool_use" }] }] }, "message.content[0].content[0].type"],
    ["tool_use input not an object", { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: "x" }] }, "message.content[0].input"],
    ["not an object", "hello", "message"],
  ];
  for (const [what, message, path] of cases) {
    it(what, () => {
      expect(() => count(message as Message)).toThrowError(expect.objectContaining({ code: "INVALID_MESSAGE", path }));
    });
  }

  it("a circular tool_use input is INVALID_MESSAGE, not a TypeError", () => {
    const input: Record<string, unknown> = {};
    input.self = input;
    const message = { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input }] } as Message;
    expect(() => count(message)).toThrowError(expect.objectContaining({ code: "INVALID_MESSAGE", path: "message.content[0].input" }));
  });

  it("countMessages prefixes the path with the message's index", () => {
    const messages = [{ role: "user", content: "ok" }, { role: "user", content: [{ type: "text", text: 1 }] }] as Message[];
    let caught: unknown;
    try {
      counter().countMessages(messages);
    } catch (error) {
      caught = error;
    }
    expect(isAmplifierError(caught, "INVALID_MESSAGE")).toBe(true);
    expect((caught as { path: string }).path).toBe("messages[1].content[0].text");
    expect((caught as Error).message).toContain("messages[1].content[0].text");
  });
});
