/**
 * Provider-side compaction in the provider modules (issue 28 part 3): the config (defaults off,
 * typed errors), what is sent (context_management, the beta headers), the bill's compaction
 * iterations, the streamed compaction block, and the fake server's refusal of a block or item that
 * is not one it returned unchanged. The 300-turn session is provider-compaction-session.test.ts.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AmplifierEvents, Message } from "../../contracts/index.js";
import { SERVER_COMPACTION_CAPABILITY } from "../../contracts/index.js";
import { Coordinator } from "../../core/index.js";
import { fromOpenAIResponses, type OpenAIResponse } from "../../modules/adapters/index.js";
import { AnthropicProvider } from "../../modules/provider-anthropic/index.js";
import { OpenAIProvider } from "../../modules/provider-openai/index.js";
import { priceUsage } from "../../modules/tokens/index.js";
import { brokenProvider, plainAnswer, startBrokenApiServer, type BrokenApiServer } from "./broken-api-server.js";
import { API_KEY, startFakeApiServer, type FakeApiServer } from "./fake-api-server.js";
import { thrown } from "../support/thrown.js";

const COMPACT = { edits: [{ type: "compact_20260112" as const, trigger: { type: "input_tokens" as const, value: 50_000 } }] };
const long = (n: number) => Array.from({ length: n }, (_, i) => `sentence ${i} of a long conversation about the billing migration.`).join(" ");

let fake: FakeApiServer;
let broken: BrokenApiServer;
beforeAll(async () => {
  fake = await startFakeApiServer(() => ({ text: "Done." }));
  broken = await startBrokenApiServer();
});
afterAll(async () => {
  await fake.close();
  await broken.close();
});

const anthropic = (extra: Record<string, unknown> = {}, hooks?: Coordinator["hooks"]) => new AnthropicProvider({ model: "claude-sonnet-4-6", apiKey: API_KEY, baseURL: fake.url, maxRetries: 0, ...extra }, hooks ? { hooks } : {});
const responses = (extra: Record<string, unknown> = {}) => new OpenAIProvider({ model: "gpt-4o", api: "responses", apiKey: API_KEY, baseURL: `${fake.url}/v1`, maxRetries: 0, ...extra });

describe("config: defaults off, bad values typed", () => {
  it("without contextManagement nothing is sent and no server-compaction capability is listed", async () => {
    const before = fake.received.length;
    await anthropic().complete({ messages: [{ role: "user", content: "hi" }] });
    await responses().complete({ messages: [{ role: "user", content: "hi" }] });
    for (const request of fake.received.slice(before)) expect(request.body).not.toHaveProperty("context_management");
    expect(anthropic().getInfo().capabilities).not.toContain(SERVER_COMPACTION_CAPABILITY);
    expect(responses().getInfo().capabilities).not.toContain(SERVER_COMPACTION_CAPABILITY);
    expect(anthropic({ contextManagement: COMPACT }).getInfo().capabilities).toContain(SERVER_COMPACTION_CAPABILITY);
    expect(responses({ contextManagement: [{ type: "compaction", compact_threshold: 20_000 }] }).getInfo().capabilities).toContain(SERVER_COMPACTION_CAPABILITY);
  });

  it.each([
    ["a trigger under the API's minimum", { edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: 10_000 } }] }, "config.contextManagement.edits[0].trigger.value"],
    ["an unknown edit", { edits: [{ type: "clear_everything" }] }, "config.contextManagement.edits[0].type"],
    ["an edit twice", { edits: [COMPACT.edits[0], COMPACT.edits[0]] }, "config.contextManagement.edits[1].type"],
    ["clear_thinking not first", { edits: [{ type: "clear_tool_uses_20250919" }, { type: "clear_thinking_20251015", keep: "all" }] }, "config.contextManagement.edits[1]"],
    ["a misspelt key", { edits: [{ type: "compact_20260112", pause_after_compation: true }] }, "config.contextManagement.edits[0]"],
    ["no edits", { edits: [] }, "config.contextManagement.edits"],
  ])("Anthropic: %s is INVALID_MODULE_CONFIG naming it", (_name, contextManagement, path) => {
    const error = thrown(() => anthropic({ contextManagement }));
    expect(error.code).toBe("INVALID_MODULE_CONFIG");
    expect(JSON.stringify(error.details)).toContain(path);
  });

  it.each([
    ["on Chat Completions", { api: "chat", contextManagement: [{ type: "compaction", compact_threshold: 20_000 }] }, "config.contextManagement"],
    ["a threshold that is no positive integer", { contextManagement: [{ type: "compaction", compact_threshold: 0 }] }, "config.contextManagement[0].compact_threshold"],
    ["a threshold at or above the window", { contextManagement: [{ type: "compaction", compact_threshold: 128_000 }] }, "config.contextManagement[0].compact_threshold"],
    ["another type", { contextManagement: [{ type: "truncate", compact_threshold: 1_000 }] }, "config.contextManagement[0].type"],
  ])("OpenAI: %s is INVALID_MODULE_CONFIG naming it", (_name, extra, path) => {
    const error = thrown(() => responses(extra));
    expect(error.code).toBe("INVALID_MODULE_CONFIG");
    expect(JSON.stringify(error.details)).toContain(path);
  });
});

describe("what is sent, and the answer's compaction", () => {
  it("Anthropic: context_management with its beta headers; a compaction answer's block stored and its iteration billed apart", async () => {
    const coordinator = new Coordinator();
    const responsesSeen: AmplifierEvents["provider:response"][] = [];
    coordinator.hooks.register("provider:response", (event) => void responsesSeen.push(event));
    const provider = anthropic({ contextManagement: { edits: [{ type: "clear_thinking_20251015", keep: "all" }, { type: "clear_tool_uses_20250919", keep: { type: "tool_uses", value: 3 } }, ...COMPACT.edits] } }, coordinator.hooks);
    const before = fake.received.length;
    const answer = await provider.complete({ messages: [{ role: "user", content: long(6_000) }] });
    const request = fake.received[before]!;
    expect(request.problems).toEqual([]);
    expect(request.body.context_management).toEqual({ edits: [{ type: "clear_thinking_20251015", keep: "all" }, { type: "clear_tool_uses_20250919", keep: { type: "tool_uses", value: 3 } }, ...COMPACT.edits] });
    expect(request.compaction?.compacted).toBe(true);
    const block = (answer.message.content as { type: string; provider?: string; data?: { encrypted_content?: string } }[])[0]!;
    expect(block).toMatchObject({ type: "compaction", provider: "anthropic" });
    expect(answer.usage?.compaction).toEqual({ iterations: 1, inputTokens: request.compaction!.measured, outputTokens: expect.any(Number), cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(responsesSeen[0]?.usage?.compaction?.iterations).toBe(1);
    // Priced apart at the model's rates.
    const price = priceUsage("claude-sonnet-4-6", answer.usage!)!;
    expect(price.compactionUsd).toBeCloseTo((request.compaction!.measured * 3 + answer.usage!.compaction!.outputTokens! * 15) / 1_000_000, 12);
    expect(price.totalUsd).toBeCloseTo(price.answerUsd + price.compactionUsd, 12);

    // Sent back: accepted; the same block edited: refused 400 as the API refuses it.
    const next: Message[] = [{ role: "user", content: long(6_000) }, answer.message, { role: "user", content: "Go on." }];
    await provider.complete({ messages: next });
    expect(fake.received.at(-1)!.problems).toEqual([]);
    expect(fake.received.at(-1)!.compaction).toMatchObject({ sent: 1, latestSentBack: true, compacted: false });
    const edited = structuredClone(answer.message);
    (edited.content as { data: { content: string } }[])[0]!.data.content = "An edited summary.";
    await expect(provider.complete({ messages: [{ role: "user", content: "hi" }, edited, { role: "user", content: "Go on." }] })).rejects.toMatchObject({ code: "PROVIDER/API_ERROR", details: expect.objectContaining({ status: 400 }) });
    expect(fake.received.at(-1)!.problems.join()).toContain("not one the API returned");
  });

  it("Anthropic streamed: the compaction block arrives through compaction_delta, whole", async () => {
    const provider = anthropic({ contextManagement: COMPACT, stream: true });
    const answer = await provider.complete({ messages: [{ role: "user", content: long(6_000) }] });
    const block = (answer.message.content as { type: string; data?: Record<string, unknown> }[])[0]!;
    expect(block.type).toBe("compaction");
    expect(block.data).toMatchObject({ type: "compaction", content: expect.stringContaining("Summary"), encrypted_content: expect.any(String) });
    await provider.complete({ messages: [{ role: "user", content: "x" }, answer.message, { role: "user", content: "Go on." }] });
    expect(fake.received.at(-1)!.problems).toEqual([]);
  });

  it("Anthropic pause_after_compaction: the compaction block alone (stop_reason compaction), then the call goes on from it", async () => {
    const provider = anthropic({ contextManagement: { edits: [{ ...COMPACT.edits[0], pause_after_compaction: true }] } });
    const first: Message[] = [{ role: "user", content: long(6_000) }];
    const paused = await provider.complete({ messages: first });
    expect(paused.stopReason).toBe("compaction");
    expect((paused.message.content as { type: string }[]).map((b) => b.type)).toEqual(["compaction"]);
    expect(paused.usage?.compaction?.iterations).toBe(1);
    const resumed = await provider.complete({ messages: [...first, paused.message] });
    expect(fake.received.at(-1)!.problems).toEqual([]);
    expect(fake.received.at(-1)!.compaction).toMatchObject({ sent: 1, latestSentBack: true, compacted: false });
    expect(resumed.message.content).toEqual([{ type: "text", text: "Done." }]);
  });

  it("OpenAI Responses: context_management sent; the compaction item stored, counted in the bill, refused when edited", async () => {
    const provider = responses({ contextManagement: [{ type: "compaction", compact_threshold: 20_000 }] });
    const before = fake.received.length;
    const answer = await provider.complete({ messages: [{ role: "user", content: long(2_500) }] });
    expect(fake.received[before]!.body.context_management).toEqual([{ type: "compaction", compact_threshold: 20_000 }]);
    expect(answer.usage?.compaction).toEqual({ iterations: 1 });
    expect(priceUsage("gpt-4o", answer.usage!)).toMatchObject({ compactionUsd: 0, compactionIncluded: true });
    await provider.complete({ messages: [{ role: "user", content: "x" }, answer.message, { role: "user", content: "Go on." }] });
    expect(fake.received.at(-1)!.problems).toEqual([]);
    const edited = structuredClone(answer.message);
    (edited.content as { data: { encrypted_content: string } }[])[0]!.data.encrypted_content += "AA";
    await expect(provider.complete({ messages: [{ role: "user", content: "x" }, edited, { role: "user", content: "Go on." }] })).rejects.toMatchObject({ code: "PROVIDER/API_ERROR", details: expect.objectContaining({ status: 400 }) });
  });

  it("POST /responses/compact (the SDK's responses.compact): its output stored and sent back in the next request", async () => {
    const client = new OpenAI({ apiKey: API_KEY, baseURL: `${fake.url}/v1`, maxRetries: 0 });
    const compacted = await client.responses.compact({ model: "gpt-4o", input: [{ role: "user", content: "Plan the migration." }, { role: "assistant", content: "Step one." }, { role: "user", content: "Step two?" }] });
    const stored = fromOpenAIResponses(compacted as unknown as OpenAIResponse);
    expect(stored.map((m) => m.role)).toEqual(["user", "user", "assistant"]);
    await responses().complete({ messages: [...stored, { role: "user", content: "And step three?" }] });
    const request = fake.received.at(-1)!;
    expect(request.problems).toEqual([]);
    expect((request.body.input as unknown[]).filter((item) => JSON.stringify(item) === JSON.stringify(compacted.output.at(-1)))).toHaveLength(1);
  });
});

describe("the bill's compaction figures are checked like the others", () => {
  it("a compaction iteration with a bad figure: the answer stands, its usage dropped and the figure reported", async () => {
    const coordinator = new Coordinator();
    const invalid: AmplifierEvents["provider:usage_invalid"][] = [];
    coordinator.hooks.register("provider:usage_invalid", (event) => void invalid.push(event));
    broken.answer = (api, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(plainAnswer(api, { input_tokens: 10, output_tokens: 2, iterations: [{ type: "compaction", input_tokens: "9000", output_tokens: 40 }, { type: "message", input_tokens: 10, output_tokens: 2 }] }));
    };
    const response = await brokenProvider("anthropic", broken, coordinator).complete({ messages: [{ role: "user", content: "hi" }] });
    expect(response.usage).toBeUndefined();
    expect(invalid).toEqual([expect.objectContaining({ field: "usage.iterations[compaction].input_tokens", given: "9000" })]);
  });

  it("Anthropic context editing: the input its applied edits cleared is reported beside the bill (clearedInputTokens)", async () => {
    broken.answer = (api, res) => {
      const answer = JSON.parse(plainAnswer(api, { input_tokens: 40_000, output_tokens: 2 })) as Record<string, unknown>;
      answer.context_management = { applied_edits: [{ type: "clear_thinking_20251015", cleared_thinking_turns: 3, cleared_input_tokens: 15_000 }, { type: "clear_tool_uses_20250919", cleared_tool_uses: 8, cleared_input_tokens: 50_000 }] };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer));
    };
    const response = await brokenProvider("anthropic", broken, new Coordinator()).complete({ messages: [{ role: "user", content: "hi" }] });
    expect(response.usage).toEqual({ inputTokens: 40_000, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, clearedInputTokens: 65_000 });
  });

  it("sane iterations: summed per figure over every compaction entry", async () => {
    broken.answer = (api, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(plainAnswer(api, { input_tokens: 10, output_tokens: 2, iterations: [{ type: "compaction", input_tokens: 9000, output_tokens: 40, cache_read_input_tokens: 100 }, { type: "compaction", input_tokens: 1000, output_tokens: 10 }, { type: "message", input_tokens: 10, output_tokens: 2 }] }));
    };
    const response = await brokenProvider("anthropic", broken, new Coordinator()).complete({ messages: [{ role: "user", content: "hi" }] });
    expect(response.usage).toEqual({ inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, compaction: { iterations: 2, inputTokens: 10_100, outputTokens: 50, cacheReadTokens: 100, cacheWriteTokens: 0 } });
  });
});
