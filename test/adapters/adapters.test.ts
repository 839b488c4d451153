/**
 * The adapters' documented behaviour (contracts/ADAPTERS.md), one rule per test; the random
 * windows are in adapter-properties.test.ts.
 */
import { describe, expect, it } from "vitest";
import { generateText, jsonSchema, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import type { Message } from "@amplifier-ts/contracts";
import { adapterErrors, fromAISDK, fromAnthropic, fromApiTool, fromOpenAIChat, fromOpenAIResponses, toAISDK, toAnthropic, toOpenAIChat, toOpenAIResponses, type AnthropicRequest } from "../../modules/adapters/index.js";
import { anthropicProblems, openAIChatProblems, openAIResponsesProblems } from "./api-rules.js";
import { anthropicRequest, anthropicResponse, chatCompletionWithToolCalls, chatRequest, responsesOutput } from "./fixtures/recorded-shapes.js";
import { thrown } from "../support/thrown.js";

const TOOLS = [{ type: "function" as const, function: { name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } } }];
const ALL = { toOpenAIChat, toOpenAIResponses, toAnthropic, toAISDK: (m: readonly Message[]) => toAISDK(m) };

/** An agent turn in Anthropic style with a split result carrier and a turn note after it. */
const anthropicTurn: Message[] = [
  { role: "system", content: "You are a careful coding agent." },
  { role: "developer", content: "Answer briefly." },
  { role: "user", content: "Read both files." },
  { role: "assistant", content: [{ type: "thinking", thinking: "Two reads.", signature: "sig-1" }, { type: "text", text: "Reading." }, { type: "tool_use", id: "toolu_a", name: "read_file", input: { path: "a.ts" } }, { type: "tool_use", id: "toolu_b", name: "read_file", input: { path: "b.ts" } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_b", content: "export const b = 2;" }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_a", content: "export const a = 1;" }, { type: "text", text: "Keep going." }] },
  { role: "system", content: "Lint: 0 warnings.", metadata: { scope: "turn", source: "hook" } },
  { role: "assistant", content: "Both read." },
];

describe("typed errors: the message index and the rule", () => {
  it.each(Object.entries(ALL))("%s refuses an orphan tool result", (_, to) => {
    const error = thrown(() => to([{ role: "user", content: "hi" }, { role: "tool", tool_call_id: "call_x", content: "stale" }]));
    expect(adapterErrors.is(error, "ORPHAN_RESULT")).toBe(true);
    expect(error.details).toMatchObject({ index: 1, path: "messages[1]", given: "call_x" });
    expect(String(error.details.rule)).toMatch(/follows its call directly/);
  });

  it.each(Object.entries(ALL))("%s refuses a call without all of its results, naming the call and the missing id", (_, to) => {
    const error = thrown(() =>
      to([
        { role: "user", content: "go" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: "{}" } }, { id: "c2", type: "function", function: { name: "read_file", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "c1", content: "one" },
        { role: "user", content: "next" },
      ]),
    );
    expect(adapterErrors.is(error, "MISSING_RESULT")).toBe(true);
    expect(error.details).toMatchObject({ index: 1, given: ["c2"] });
  });

  it.each(Object.entries(ALL))("%s refuses an unknown block type with its path", (_, to) => {
    const error = thrown(() => to([{ role: "user", content: [{ type: "document", data: "x" }] } as unknown as Message]));
    expect(adapterErrors.is(error, "UNKNOWN_BLOCK")).toBe(true);
    expect(error.details).toMatchObject({ index: 0, path: "messages[0].content[0]", given: "document" });
  });

  it.each(Object.entries(ALL))("%s refuses an image it cannot send (no data, no URL)", (_, to) => {
    const error = thrown(() => to([{ role: "user", content: [{ type: "image", width: 10, height: 10 }] }]));
    expect(adapterErrors.is(error, "UNSUPPORTED_CONTENT")).toBe(true);
    expect(error.details.index).toBe(0);
  });

  it("a result answered twice is an orphan the second time", () => {
    const error = thrown(() =>
      toOpenAIChat([
        { role: "user", content: "go" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "c1", content: "one" },
        { role: "tool", tool_call_id: "c1", content: "again" },
      ]),
    );
    expect(adapterErrors.is(error, "ORPHAN_RESULT")).toBe(true);
    expect(error.details.index).toBe(3);
  });

  it("a message that breaks the Message contract is INVALID_INPUT at its path; a bad tool list too", () => {
    const error = thrown(() => toAnthropic([{ role: "robot", content: "x" } as unknown as Message]));
    expect(adapterErrors.is(error, "INVALID_INPUT")).toBe(true);
    expect(error.details.path).toBe("messages[0].role");
    const tools = thrown(() => toOpenAIChat([{ role: "user", content: "x" }], { tools: [{ type: "function", function: { name: "bad name!" } }] }));
    expect(tools.details.path).toBe("options.tools[0]");
  });

  it("reading back refuses what a stored message cannot hold", () => {
    expect(adapterErrors.is(thrown(() => fromAnthropic([{ role: "user", content: [{ type: "document" } as never] }])), "UNKNOWN_BLOCK")).toBe(true);
    expect(adapterErrors.is(thrown(() => fromOpenAIResponses([{ type: "web_search_call", id: "ws_1" } as never])), "UNKNOWN_BLOCK")).toBe(true);
    expect(adapterErrors.is(thrown(() => fromOpenAIChat([{ role: "function", content: "x" } as never])), "INVALID_INPUT")).toBe(true);
  });
});

describe("toAnthropic", () => {
  const request = toAnthropic(anthropicTurn, { tools: TOOLS });

  it("hoists instructions into system blocks, in order, and keeps a turn note in place as user text", () => {
    expect(request.system).toEqual([{ type: "text", text: "You are a careful coding agent." }, { type: "text", text: "Answer briefly." }]);
    expect(request.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(request.messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_b", content: "export const b = 2;" },
      { type: "tool_result", tool_use_id: "toolu_a", content: "export const a = 1;" },
      { type: "text", text: "Keep going." },
      { type: "text", text: "Lint: 0 warnings." },
    ]);
    expect(anthropicProblems(request as never)).toEqual([]);
  });

  it("keeps thinking blocks with their signatures, drops thinking without one", () => {
    expect(request.messages[1]!.content).toContainEqual({ type: "thinking", thinking: "Two reads.", signature: "sig-1" });
    const unsigned = toAnthropic([{ role: "user", content: "q" }, { role: "assistant", content: [{ type: "thinking", thinking: "hm" }, { type: "text", text: "a" }] }]);
    expect(unsigned.messages[1]!.content).toEqual([{ type: "text", text: "a" }]);
  });

  it("converts OpenAI-style calls and results: tool_use with parsed input, results in one user message right after", () => {
    const converted = toAnthropic([
      { role: "user", content: "go" },
      { role: "assistant", content: "Looking.", tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"x"}' } }] },
      { role: "tool", tool_call_id: "call_1", name: "read_file", content: "data" },
      { role: "user", content: "thanks" },
    ]);
    expect(converted.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "go" }] },
      { role: "assistant", content: [{ type: "text", text: "Looking." }, { type: "tool_use", id: "call_1", name: "read_file", input: { path: "x" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "data" }, { type: "text", text: "thanks" }] },
    ]);
  });

  it("cache: breakpoints on the last system block, the previous user message and the final message — never more than 4, never on thinking", () => {
    const cached = toAnthropic([...anthropicTurn, { role: "user", content: "Now refactor." }], { tools: TOOLS, cache: true });
    const marked = [
      ...(cached.system ?? []).flatMap((b, k) => (b.cache_control ? [`system[${k}]`] : [])),
      ...cached.messages.flatMap((m, i) => (Array.isArray(m.content) ? m.content.flatMap((b, k) => ("cache_control" in b && b.cache_control ? [`messages[${i}][${k}]`] : [])) : [])),
    ];
    expect(marked).toEqual(["system[1]", "messages[2][3]", "messages[4][0]"]);
    expect(anthropicProblems(cached as never)).toEqual([]);
    expect(JSON.stringify(toAnthropic(anthropicTurn))).not.toContain("cache_control");
  });

  it("a conversation that starts with the assistant gets a user message first; a prefill loses trailing whitespace", () => {
    const converted = toAnthropic([{ role: "assistant", content: "Hello! " }]);
    expect(converted.messages).toEqual([{ role: "user", content: [{ type: "text", text: "(conversation start)" }] }, { role: "assistant", content: [{ type: "text", text: "Hello!" }] }]);
    expect(anthropicProblems(converted as never)).toEqual([]);
  });

  it("reads a recorded response back: thinking with its signature, text, tool_use", () => {
    expect(fromAnthropic(anthropicResponse as never)).toEqual([{ role: "assistant", content: anthropicResponse.content }]);
  });

  it("a recorded request round-trips: from, then to, gives the request again", () => {
    const stored = fromAnthropic(anthropicRequest as never);
    const tools = anthropicRequest.tools.map((t) => fromApiTool(t as never));
    expect(toAnthropic(stored, { tools })).toEqual(anthropicRequest as unknown as AnthropicRequest);
  });
});

describe("toOpenAIChat", () => {
  it("turns Anthropic-style calls into tool_calls and one tool message per result, right after; the carrier's text after them", () => {
    const request = toOpenAIChat(anthropicTurn, { tools: TOOLS });
    expect(request.messages.map((m) => m.role)).toEqual(["system", "developer", "user", "assistant", "tool", "tool", "user", "system", "assistant"]);
    expect(request.messages[3]).toEqual({ role: "assistant", content: "Reading.", tool_calls: [{ id: "toolu_a", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } }, { id: "toolu_b", type: "function", function: { name: "read_file", arguments: '{"path":"b.ts"}' } }] });
    expect(request.messages.slice(4, 7)).toEqual([
      { role: "tool", tool_call_id: "toolu_b", content: "export const b = 2;" },
      { role: "tool", tool_call_id: "toolu_a", content: "export const a = 1;" },
      { role: "user", content: [{ type: "text", text: "Keep going." }] },
    ]);
    expect(request.tools).toEqual([{ type: "function", function: TOOLS[0]!.function }]);
    expect(openAIChatProblems(request as never)).toEqual([]);
  });

  it("images a tool returned go in a user message after the tool messages (Chat tool messages carry text only)", () => {
    const request = toOpenAIChat([
      { role: "user", content: "screenshot" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "shot", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "done" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }] }] },
    ]);
    expect(request.messages.slice(2)).toEqual([
      { role: "tool", tool_call_id: "t1", content: [{ type: "text", text: "done" }] },
      { role: "user", content: [{ type: "text", text: "Images returned by tool call t1:" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] },
    ]);
    expect(openAIChatProblems(request as never)).toEqual([]);
  });

  it("reads a recorded completion back and round-trips a recorded request", () => {
    expect(fromOpenAIChat(chatCompletionWithToolCalls as never)).toEqual([{ role: "assistant", content: null, tool_calls: chatCompletionWithToolCalls.choices[0].message.tool_calls }]);
    const stored = fromOpenAIChat(chatRequest.messages as never);
    expect(stored[3]).toEqual({ role: "tool", tool_call_id: "call_12345xyz", name: "get_weather", content: "18°C, light wind" });
    expect(toOpenAIChat(stored, { tools: chatRequest.tools.map((t) => fromApiTool(t as never)) })).toEqual(chatRequest);
  });
});

describe("toOpenAIResponses", () => {
  it("hoists instructions, keeps notes in place, and puts each call's outputs right after its function_call items", () => {
    const request = toOpenAIResponses(anthropicTurn, { tools: TOOLS });
    expect(request.instructions).toBe("You are a careful coding agent.\n\nAnswer briefly.");
    expect(request.input.map((i) => i.type + ("role" in i ? `:${i.role}` : ""))).toEqual(["message:user", "message:assistant", "function_call", "function_call", "function_call_output", "function_call_output", "message:user", "message:system", "message:assistant"]);
    expect(request.tools).toEqual([{ type: "function", name: "read_file", description: "Read a file", parameters: TOOLS[0]!.function.parameters, strict: false }]);
    expect(openAIResponsesProblems(request as never)).toEqual([]);
  });

  it("reasoning items round-trip with their ids and encrypted content; thinking from elsewhere is not sent", () => {
    const stored = fromOpenAIResponses(responsesOutput as never);
    expect(stored).toEqual([
      {
        role: "assistant",
        content: [{ type: "thinking", thinking: "**Checking the weather** I need the current temperature in Paris.", signature: "gAAAAABodzYG_enc" }, { type: "text", text: "Let me check." }],
        tool_calls: [{ id: "call_12345xyz", type: "function", function: { name: "get_weather", arguments: '{"location":"Paris, France"}' } }],
        metadata: { openai: { reasoning: ["rs_6876cf02e0bc8192b74af0fb64b715ff06fa2fcced15a5ac"] } },
      },
    ]);
    const request = toOpenAIResponses([{ role: "user", content: "Weather in Paris?" }, ...stored, { role: "tool", tool_call_id: "call_12345xyz", content: "18°C" }]);
    expect(request.input[1]).toEqual({ type: "reasoning", id: "rs_6876cf02e0bc8192b74af0fb64b715ff06fa2fcced15a5ac", summary: [{ type: "summary_text", text: "**Checking the weather** I need the current temperature in Paris." }], encrypted_content: "gAAAAABodzYG_enc" });
    expect(openAIResponsesProblems(request as never)).toEqual([]);
    const foreign = toOpenAIResponses([{ role: "user", content: "q" }, { role: "assistant", content: [{ type: "thinking", thinking: "x", signature: "anthropic-sig" }, { type: "text", text: "a" }] }]);
    expect(foreign.input.map((i) => i.type)).toEqual(["message", "message"]);
  });
});

describe("toAISDK", () => {
  it("keeps notes as marked user text, signatures in providerOptions, and reads both back", () => {
    const messages = toAISDK(anthropicTurn);
    expect(messages.find((m) => m.providerOptions?.amplifier)).toEqual({ role: "user", content: "Lint: 0 warnings.", providerOptions: { amplifier: { role: "system", scope: "turn" } } });
    expect(messages[3]!.content).toContainEqual({ type: "reasoning", text: "Two reads.", providerOptions: { anthropic: { signature: "sig-1" } } });
    const back = fromAISDK(messages);
    expect(back.find((m) => m.metadata?.scope === "turn")).toEqual({ role: "system", content: "Lint: 0 warnings.", metadata: { scope: "turn" } });
    expect(back[3]!.content).toContainEqual({ type: "thinking", thinking: "Two reads.", signature: "sig-1" });
  });

  it("generateText runs on the window with the tools, and the model receives the converted prompt", async () => {
    let prompt: unknown;
    let tools: unknown;
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        prompt = options.prompt;
        tools = options.tools;
        return {
          content: [{ type: "text", text: "Done." }],
          finishReason: { unified: "stop", raw: "stop" },
          usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 2, text: 2, reasoning: 0 } },
          warnings: [],
        } as never;
      },
    });
    const window = anthropicTurn.filter((m) => m.role !== "system" || m.metadata?.scope === "turn");
    const result = await generateText({
      model,
      system: "You are a careful coding agent.",
      messages: toAISDK(window) as never,
      tools: { read_file: tool({ description: "Read a file", inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } } }) }) },
    });
    expect(result.text).toBe("Done.");
    expect(tools).toEqual([expect.objectContaining({ type: "function", name: "read_file" })]);
    const roles = (prompt as { role: string }[]).map((m) => m.role);
    expect(roles).toEqual(["system", "system", "user", "assistant", "tool", "user", "user", "assistant"]);
    const toolMessage = (prompt as { role: string; content: { toolCallId: string }[] }[])[4]!;
    expect(toolMessage.content.map((p) => p.toolCallId)).toEqual(["toolu_b", "toolu_a"]);
  });
});

describe("the request rules the properties check against are not vacuous", () => {
  it("each checker refuses the request its API refuses", () => {
    expect(openAIChatProblems({ messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] }, { role: "user", content: "x" }] })).toHaveLength(1);
    expect(openAIChatProblems({ messages: [{ role: "tool", tool_call_id: "c", content: "x" }] })[0]).toMatch(/must be a response/);
    expect(openAIResponsesProblems({ input: [{ type: "function_call", call_id: "c", name: "f", arguments: "{}" }] })[0]).toMatch(/No tool output/);
    expect(openAIResponsesProblems({ input: [{ type: "reasoning", id: "rs_1", summary: [] }] })[0]).toMatch(/required following item/);
    expect(anthropicProblems({ messages: [{ role: "user", content: [{ type: "text", text: "x" }, { type: "tool_result", tool_use_id: "t" }] }] }).join()).toMatch(/must come first/);
    expect(anthropicProblems({ messages: [{ role: "user", content: "q" }, { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] }, { role: "user", content: "no result" }] }).join()).toMatch(/without tool_result blocks/);
    const five = Array.from({ length: 5 }, (_, k) => ({ type: "text", text: `s${k}`, cache_control: { type: "ephemeral" } }));
    expect(anthropicProblems({ system: five, messages: [{ role: "user", content: "q" }] }).join()).toMatch(/maximum of 4/);
  });
});
