import type { SpanContext } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { forEachContentPart, type Message, type ToolCallPart } from "../../../contracts/index.js";
import { createSession } from "../../../src/session/index.js";
import { runTool, startTurn } from "../../../src/turn/index.js";
import { API_KEY, startFakeApiServer, type FakeApiServer, type Reply } from "../../../test/providers/fake-api-server.js";
import { GEN_AI, instrumentSession } from "../index.js";

/**
 * A compacting turn through a real session: context-simple, provider-openai against the local
 * fake API server (test/providers/fake-api-server.ts), a tool; the history outgrows the budget,
 * so the window compacts before each call. What the in-memory exporter receives is the contract
 * of this package: the GenAI attribute names, the compaction's numbers, the parent of each span.
 */
const BUDGET = 1_500;
const MAX_OUTPUT = 256;
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("compacting-turn.test");

let script: (body: Record<string, unknown>) => Reply;
let server: FakeApiServer;
beforeAll(async () => {
  server = await startFakeApiServer((_api, body) => script(body));
  vi.stubEnv("OPENAI_API_KEY", API_KEY);
  vi.stubEnv("OPENAI_BASE_URL", `${server.url}/v1`);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await server.close();
});
beforeEach(() => exporter.reset());

/** An old conversation far over the budget: 60 exchanges of ~100 tokens each. */
function longHistory(): Message[] {
  const filler = (i: number) => Array.from({ length: 60 }, (_, k) => `word${(i * 7 + k) % 97}`).join(" ");
  return [
    { role: "system", content: "You are a careful coding agent." },
    ...Array.from({ length: 60 }, (_, i): Message[] => [
      { role: "user", content: `question ${i}: ${filler(i)}` },
      { role: "assistant", content: `answer ${i}: ${filler(i + 1)}` },
    ]).flat(),
  ];
}

/** The README's loop with an explicit budget: window, call, tools, until an answer. */
async function compactingTurn(prompt: string) {
  const session = await createSession({
    session: { context: { module: "context-simple", config: {} } },
    providers: [{ name: "model", module: "provider-openai", config: { model: "gpt-4o", maxRetries: 0, maxOutputTokens: MAX_OUTPUT } }],
  });
  const { context, coordinator } = session;
  await coordinator.mount("tools", {
    definition: { type: "function", function: { name: "read_file", description: "Reads a file.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } },
    execute: () => ({ output: '{ "scripts": {} }' }),
  }, "read_file");
  const stop = instrumentSession(session, { tracer, agentName: "coder" });
  await context.setMessages(longHistory());
  const model = coordinator.get("providers", "model")!;
  const tools = Object.values(coordinator.get("tools")).map((tool) => tool.definition);
  const turn = await startTurn(coordinator, prompt);
  let failure: unknown;
  try {
    for (let step = 0; step < 5; step++) {
      const messages = await context.getMessagesForRequest(BUDGET, model, { tools, extraMessages: turn.extraMessages });
      const { message } = await model.complete!({ messages, tools });
      await context.addMessage(message);
      const calls: ToolCallPart[] = [];
      let answer = "";
      forEachContentPart(message, { text: (text) => void (answer += text), toolCall: (call) => void calls.push(call) });
      if (calls.length === 0) {
        await turn.complete(answer);
        break;
      }
      for (const call of calls) await context.addMessage({ role: "tool", tool_call_id: call.id, content: (await runTool(coordinator, call)).output });
    }
  } catch (error) {
    failure = error;
  }
  await new Promise((resolve) => setImmediate(resolve)); // the last call's span ends after its response handlers
  stop();
  await session.close();
  return { sessionId: coordinator.sessionId, failure, spans: exporter.getFinishedSpans() };
}

const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
const parentOf = (span: ReadableSpan): SpanContext | undefined => span.parentSpanContext;

describe("a compacting turn as OpenTelemetry spans (GenAI semantic conventions)", () => {
  it("turn → compaction, chat and tool spans, with the GenAI names and the window's numbers", async () => {
    script = (body) =>
      JSON.stringify(body).includes("scripts")
        ? { text: "package.json has no test script.", usage: { input: 1_200, output: 9 } }
        : { text: "Let me read package.json.", toolCalls: [{ id: "call_1", name: "read_file", arguments: { path: "package.json" } }], usage: { input: 1_150, output: 21, cacheRead: 1_024 } };
    const { sessionId, failure, spans } = await compactingTurn("Why do the tests fail?");
    expect(failure).toBeUndefined();
    expect(server.received.flatMap((r) => r.problems)).toEqual([]);

    const [turn, ...moreTurns] = named(spans, "invoke_agent coder");
    expect(moreTurns).toEqual([]);
    expect(turn!.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "coder", "gen_ai.conversation.id": sessionId, "session.id": sessionId });
    expect(parentOf(turn!)).toBeUndefined(); // a trace of its own

    const chats = named(spans, "chat gpt-4o");
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.kind).toBe(2); // SpanKind.CLIENT
      expect(parentOf(chat)?.spanId).toBe(turn!.spanContext().spanId);
      expect(chat.spanContext().traceId).toBe(turn!.spanContext().traceId);
      expect(chat.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.request.max_tokens": MAX_OUTPUT,
        "gen_ai.request.stream": false,
        "gen_ai.response.model": "gpt-4o-2024-08-06",
        "gen_ai.conversation.id": sessionId,
        "amplifier.provider.api": "openai-chat",
        "amplifier.request.tools": 1,
      });
    }
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.usage.input_tokens": 1_150,
      "gen_ai.usage.output_tokens": 21,
      "gen_ai.usage.cache_read.input_tokens": 1_024,
      "gen_ai.response.finish_reasons": ["tool_calls"],
    });
    expect(chats[1]!.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 1_200, "gen_ai.usage.output_tokens": 9, "gen_ai.response.finish_reasons": ["stop"] });
    // The bill was matched with the window it was for: the calibration is an event of that call.
    const calibration = chats[0]!.events.find((e) => e.name === "amplifier.context.calibration");
    expect(calibration?.attributes).toMatchObject({ "amplifier.calibration.model": "gpt-4o", "amplifier.calibration.billed": 1_150 });
    expect(calibration?.attributes?.["amplifier.calibration.counted"]).toBeGreaterThan(0);

    // One compaction before each call: the history over the budget, the window under it.
    const compactions = named(spans, "amplifier.context.compact");
    expect(compactions).toHaveLength(2);
    for (const compaction of compactions) {
      const a = compaction.attributes;
      expect(parentOf(compaction)?.spanId).toBe(turn!.spanContext().spanId);
      expect(a["amplifier.context.budget"]).toBe(BUDGET);
      expect(a["amplifier.context.tokens_before"]).toBeGreaterThan(BUDGET);
      expect(a["amplifier.context.tokens_after"]).toBeLessThanOrEqual(BUDGET);
      expect(a["amplifier.context.messages_before"]).toBeGreaterThan(a["amplifier.context.messages_after"] as number);
      expect(a["amplifier.context.removed"]).toBeGreaterThan(0);
      expect(a["amplifier.context.truncated"]).toBeTypeOf("number");
      expect(a["amplifier.context.summarized"]).toBe(0);
      expect(a["amplifier.context.strategies"]).toContain("window");
      expect(a["gen_ai.conversation.id"]).toBe(sessionId);
    }
    // The window was fitted before the call it was for (the SDK's span clocks agree within 1 ms).
    expect(hrMs(compactions[0]!.endTime)).toBeLessThanOrEqual(hrMs(chats[0]!.startTime) + 1);
    expect(hrMs(chats[0]!.endTime)).toBeLessThanOrEqual(hrMs(compactions[1]!.startTime) + 1);
    expect(hrMs(compactions[1]!.endTime)).toBeLessThanOrEqual(hrMs(chats[1]!.startTime) + 1);

    const [tool] = named(spans, "execute_tool read_file");
    expect(tool?.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "read_file", "gen_ai.tool.call.id": "call_1", "gen_ai.tool.type": "function" });
    expect(parentOf(tool!)?.spanId).toBe(turn!.spanContext().spanId);
    // Content only with captureContent.
    expect(tool!.attributes["gen_ai.tool.call.arguments"]).toBeUndefined();
    expect(chats.map((c) => c.attributes["gen_ai.input.messages"] ?? c.attributes["gen_ai.output.messages"])).toEqual([undefined, undefined]);
    expect(spans.every((s) => s.attributes["amplifier.span.abandoned"] === undefined)).toBe(true);
    // Every gen_ai.* name written is one of the conventions' (test/semantic-conventions.test.ts checks the table).
    const written = new Set(spans.flatMap((s) => Object.keys(s.attributes)).filter((k) => k.startsWith("gen_ai.")));
    expect([...written].filter((k) => !(Object.values(GEN_AI) as string[]).includes(k))).toEqual([]);
  });

  it("an erroring provider call: status error, error.type the provider error's code, the turn left open is ended as abandoned", async () => {
    script = () => ({ error: { status: 400, message: "Invalid 'messages': too many cooks.", type: "invalid_request_error" } });
    const { failure, spans } = await compactingTurn("Why do the tests fail?");
    expect(failure).toMatchObject({ code: "PROVIDER/API_ERROR" });
    const [chat] = named(spans, "chat gpt-4o");
    expect(chat!.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(chat!.status.message).toContain("too many cooks");
    expect(chat!.attributes).toMatchObject({ "error.type": "PROVIDER/API_ERROR", "amplifier.error.retryable": false, "gen_ai.request.model": "gpt-4o" });
    expect(chat!.attributes["gen_ai.usage.input_tokens"]).toBeUndefined();
    expect(chat!.events.map((e) => e.name)).toContain("exception");
    const [turn] = named(spans, "invoke_agent coder");
    expect(parentOf(chat!)?.spanId).toBe(turn!.spanContext().spanId);
    expect(turn!.attributes["amplifier.span.abandoned"]).toBe(true); // no prompt:complete came: ended at teardown
    expect(named(spans, "amplifier.context.compact")).toHaveLength(1);
  });
});

function hrMs([seconds, nanos]: [number, number]): number {
  return seconds * 1_000 + nanos / 1e6;
}

