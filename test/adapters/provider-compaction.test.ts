/**
 * Provider compaction state through the adapters (contracts/ADAPTERS.md, "Provider compaction
 * blocks"): Anthropic `compaction` blocks and OpenAI Responses `compaction` items are read into one
 * opaque block and sent back byte-identical; Anthropic's request leaves out what the API drops;
 * another provider's adapter drops them. Fixtures: test/providers/fixtures/compaction (hand-written
 * from the providers' documented shapes, their source URL inside).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { validateMessage } from "@amplifier-ts/contracts";
import { getTokenCounter } from "@amplifier-ts/tokens";
import { fromAnthropic, fromOpenAIResponses, toAISDK, toAnthropic, toOpenAIChat, toOpenAIResponses, type AnthropicResponse, type OpenAIResponse } from "../../modules/adapters/index.js";
import { anthropicProblems, openAIResponsesProblems } from "./api-rules.js";
import { thrown } from "../support/thrown.js";

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../providers/fixtures/compaction/${name}.json`, import.meta.url), "utf8")) as Record<string, any>;
const anthropic = fixture("anthropic-compaction");
const openai = fixture("openai-responses-compaction");

describe("Anthropic compaction blocks", () => {
  const answer = fromAnthropic(anthropic.response as AnthropicResponse);

  it("reads the block opaque: the API's block verbatim under data, provider anthropic", () => {
    expect(answer).toHaveLength(1);
    const content = answer[0]!.content as { type: string; data?: unknown }[];
    expect(content[0]).toEqual({ type: "compaction", provider: "anthropic", data: anthropic.response.content[0] });
    expect(JSON.stringify(content[0]!.data)).toBe(JSON.stringify(anthropic.response.content[0]));
    expect(content[1]).toEqual({ type: "text", text: "Step two: copy the data in batches." });
  });

  it("sends it back byte-identical, leaving out every block before it (the API drops them), system kept", () => {
    const history: Message[] = [{ role: "system", content: "You are a migration assistant." }, ...fromAnthropic({ messages: anthropic.request.messages }), ...answer, { role: "user", content: "And step three?" }];
    const request = toAnthropic(history);
    expect(request.system).toEqual([{ type: "text", text: "You are a migration assistant." }]);
    expect(JSON.stringify(request.messages)).toBe(JSON.stringify(anthropic.next_request_messages));
    expect(anthropicProblems({ model: "m", max_tokens: 1, ...request })).toEqual([]);
  });

  it("keeps keys the contract does not name, in their order (a later API field survives)", () => {
    const block = { type: "compaction", content: "S", later_field: { a: 1, b: [2] } };
    const [stored] = fromAnthropic({ type: "message", role: "assistant", content: [block as never, { type: "text", text: "ok" }] } as AnthropicResponse);
    const sent = toAnthropic([{ role: "user", content: "hi" }, stored!]).messages[1]!.content as unknown[];
    expect(JSON.stringify(sent[0])).toBe(JSON.stringify(block));
  });

  it("a failed compaction (content null) round-trips; a content that is neither is INVALID_INPUT", () => {
    const [stored] = fromAnthropic({ type: "message", role: "assistant", content: [{ type: "compaction", content: null }, { type: "text", text: "ok" }] } as AnthropicResponse);
    expect((toAnthropic([stored!]).messages[1]!.content as unknown[])[0]).toEqual({ type: "compaction", content: null });
    const error = thrown(() => fromAnthropic({ type: "message", role: "assistant", content: [{ type: "compaction", content: 7 } as never] } as AnthropicResponse));
    expect(error).toMatchObject({ code: "ADAPTER/INVALID_INPUT" });
  });

  it("is opaque to every other reader: Chat and AI SDK drop it, Responses drops another provider's block", () => {
    const history: Message[] = [{ role: "user", content: "hi" }, ...answer];
    expect(JSON.stringify(toOpenAIChat(history))).not.toContain("compaction");
    expect(JSON.stringify(toAISDK(history))).not.toContain("compaction");
    expect(JSON.stringify(toOpenAIResponses(history))).not.toContain("compaction");
  });

  it("is counted as the summary the model reads, never as the message's text (the walker skips it)", () => {
    const counter = getTokenCounter("claude-sonnet-4-5", { safetyFactor: 1 });
    const summary = anthropic.response.content[0].content as string;
    const withBlock = counter.countMessage({ role: "assistant", content: [{ type: "compaction", provider: "anthropic", data: { type: "compaction", content: summary } }] });
    const asText = counter.countMessage({ role: "assistant", content: [{ type: "text", text: summary }] });
    expect(withBlock).toBe(asText);
  });
});

describe("OpenAI Responses compaction items", () => {
  it("reads the item opaque, in the assistant message, before the answer", () => {
    const [message] = fromOpenAIResponses(openai.response as OpenAIResponse);
    expect(message!.content).toEqual([{ type: "compaction", provider: "openai", data: openai.response.output[0] }, { type: "text", text: "Step two: copy the data in batches." }]);
  });

  it("sends the item back byte-identical, first among the message's items", () => {
    const history = [...fromOpenAIResponses({ input: openai.request.input }), ...fromOpenAIResponses(openai.response as OpenAIResponse), { role: "user", content: "And step three?" } as Message];
    const request = toOpenAIResponses(history);
    const at = request.input.findIndex((item) => item.type === "compaction");
    expect(JSON.stringify(request.input[at])).toBe(JSON.stringify(openai.response.output[0]));
    expect(request.input[at + 1]).toMatchObject({ type: "message", role: "assistant" });
    expect(openAIResponsesProblems(request as never)).toEqual([]);
  });

  it("round-trips the output of POST /responses/compact: kept user messages, then the item alone", () => {
    const stored = fromOpenAIResponses(openai.compact_response as OpenAIResponse);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant"]);
    const request = toOpenAIResponses(stored);
    expect(JSON.stringify(request.input)).toBe(JSON.stringify(openai.compact_response.output));
    expect(openAIResponsesProblems(request as never)).toEqual([]);
  });

  it("an item without encrypted_content is INVALID_INPUT (from and to)", () => {
    expect(thrown(() => fromOpenAIResponses([{ type: "compaction", id: "cmp_1" } as never]))).toMatchObject({ code: "ADAPTER/INVALID_INPUT" });
    const bad: Message = { role: "assistant", content: [{ type: "compaction", provider: "openai", data: { type: "compaction", id: "cmp_1" } }, { type: "text", text: "x" }] };
    expect(thrown(() => toOpenAIResponses([{ role: "user", content: "u" }, bad]))).toMatchObject({ code: "ADAPTER/INVALID_INPUT" });
  });

  it("Anthropic's adapter drops an OpenAI item (only its provider reads it)", () => {
    const history = [{ role: "user", content: "hi" } as Message, ...fromOpenAIResponses(openai.response as OpenAIResponse)];
    expect(JSON.stringify(toAnthropic(history))).not.toContain("compaction");
  });

  it("is counted from the encrypted length (⌈length / 4⌉), not as text", () => {
    const counter = getTokenCounter("gpt-5", { safetyFactor: 1 });
    const data = { type: "compaction" as const, id: "cmp_1", encrypted_content: "x".repeat(400) };
    const empty = counter.countMessage({ role: "assistant", content: [{ type: "text", text: "" }] });
    expect(counter.countMessage({ role: "assistant", content: [{ type: "compaction", provider: "openai", data }] }) - empty).toBe(100);
  });
});

describe("the Message contract", () => {
  it("accepts the block with either provider and refuses another provider or a data of another type", () => {
    expect(() => validateMessage({ role: "assistant", content: [{ type: "compaction", provider: "openai", data: { type: "compaction", encrypted_content: "e" } }] })).not.toThrow();
    expect(thrown(() => validateMessage({ role: "assistant", content: [{ type: "compaction", provider: "gemini", data: { type: "compaction" } } as never] }))).toMatchObject({ code: "INVALID_MESSAGE" });
    expect(thrown(() => validateMessage({ role: "assistant", content: [{ type: "compaction", provider: "openai", data: { type: "text" } } as never] }))).toMatchObject({ code: "INVALID_MESSAGE" });
  });
});

describe("fitWindow carries them (the codecs read them through the adapters)", () => {
  it("Anthropic messages with a compaction block and Responses items with a compaction item fit, the block or item returned as given", async () => {
    const { fitWindow } = await import("../../modules/window/index.js");
    const messages = [...anthropic.request.messages, { role: "assistant", content: anthropic.response.content }, { role: "user", content: "And step three?" }];
    const fitted = fitWindow(messages, { budget: 50_000, format: "anthropic", model: "claude-sonnet-4-5" });
    expect(fitted).toContain(messages[3]);
    const input = [...openai.request.input, ...openai.response.output, { type: "message", role: "user", content: "And step three?" }];
    const items = fitWindow(input, { budget: 50_000, format: "openai-responses", model: "gpt-5" });
    expect(items).toContain(openai.response.output[0]);
  });
});

describe("LangChain messages carry them", () => {
  it("ours round-trips through toLangChain/fromLangChain; Anthropic's own block (ChatAnthropic content) reads as the opaque block", async () => {
    const { fromLangChain, toLangChain } = await import("../../modules/adapters/index.js");
    const answer = fromAnthropic(anthropic.response as AnthropicResponse);
    const back = fromLangChain(toLangChain([{ role: "user", content: "hi" }, ...answer]) as never);
    expect(JSON.stringify(back[1]!.content)).toBe(JSON.stringify(answer[0]!.content));
    const native = fromLangChain([{ role: "assistant", content: anthropic.response.content }] as never);
    expect((native[0]!.content as unknown[])[0]).toEqual({ type: "compaction", provider: "anthropic", data: anthropic.response.content[0] });
  });
});
