import { diag, DiagLogLevel, trace, type Tracer } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { isAmplifierError, type Message } from "../../../contracts/index.js";
import { HookBus } from "../../../core/hooks/index.js";
import { HistoryContextManager } from "../../../modules/context-manager/history-context-manager.js";
import { createSession } from "../../../src/session/index.js";
import { startTurn } from "../../../src/turn/index.js";
import { otelHooks } from "../index.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("otel-hooks.test");
beforeEach(() => exporter.reset());
afterAll(() => trace.disable());

const spans = () => exporter.getFinishedSpans();
const request = { provider: "anthropic", model: "claude-sonnet-4", messages: [{ role: "user" as const, content: "hi" }] };
const answer = { role: "assistant" as const, content: "hello" };

describe("the otel module, mounted by name", () => {
  it('"hooks": [{ "module": "otel" }] writes to the global tracer provider: the turn, the hook\'s injection as its event, content only when asked', async () => {
    trace.setGlobalTracerProvider(provider);
    const session = await createSession({
      session: { context: { module: "context-simple", config: {} } },
      hooks: [{ module: "otel", config: { agentName: "ops", captureContent: true } }],
    });
    session.coordinator.hooks.register("prompt:submit", () => ({ action: "inject_context", context_injection: "Today is Saturday.", ephemeral: true }), { name: "clock" });
    const turn = await startTurn(session.coordinator, "What day is it?");
    await turn.complete("Saturday.");
    await session.close();
    const [span, ...rest] = spans();
    expect(rest).toEqual([]);
    expect(span!.name).toBe("invoke_agent ops");
    expect(span!.instrumentationScope.name).toBe("@amplifier-ts/module-otel");
    expect(span!.attributes["gen_ai.conversation.id"]).toBe(session.coordinator.sessionId);
    expect(JSON.parse(span!.attributes["gen_ai.input.messages"] as string)).toEqual([{ role: "user", parts: [{ type: "text", content: "What day is it?" }] }]);
    expect(JSON.parse(span!.attributes["gen_ai.output.messages"] as string)).toEqual([{ role: "assistant", parts: [{ type: "text", content: "Saturday." }], finish_reason: "stop" }]);
    const include = span!.events.find((e) => e.name === "amplifier.context.include");
    expect(include?.attributes).toEqual({
      "amplifier.include.source": "hook",
      "amplifier.include.ephemeral": true,
      "amplifier.include.role": "system",
      "amplifier.include.hook": "clock",
      "amplifier.include.event": "prompt:submit",
      "amplifier.include.content_length": 18,
      "amplifier.include.content": "Today is Saturday.",
    });
  });

  it("a config field the module does not know is refused when the session mounts it", async () => {
    const failure = await createSession({ session: { context: { module: "context-simple", config: {} } }, hooks: [{ module: "otel", config: { sampleRatio: 0.5 } }] }).catch((e: unknown) => e);
    expect(isAmplifierError(failure)).toBe(true);
    expect(String((failure as Error).message)).toMatch(/sampleRatio/);
  });
});

describe("otelHooks on a bus", () => {
  it("without an open span, a storage event is a span of its own (error.type for a fallback)", async () => {
    const hooks = new HookBus();
    const stop = otelHooks(hooks, { tracer, conversationId: "s-1" });
    await hooks.emit("context:storage_fallback", { reason: "EACCES: permission denied", store: "jsonl", storagePath: "/srv/sessions" });
    await hooks.emit("context:storage_recovered", { sessionId: "s-1", store: "jsonl", skippedLines: 1, skippedBytes: 42 });
    stop();
    expect(spans().map((s) => [s.name, s.attributes])).toEqual([
      ["amplifier.context.storage_fallback", { "gen_ai.conversation.id": "s-1", "session.id": "s-1", "amplifier.storage.reason": "EACCES: permission denied", "amplifier.storage.store": "jsonl", "amplifier.storage.path": "/srv/sessions", "error.type": "storage_fallback" }],
      ["amplifier.context.storage_recovered", { "gen_ai.conversation.id": "s-1", "session.id": "s-1", "amplifier.storage.store": "jsonl", "amplifier.storage.skipped_lines": 1, "amplifier.storage.skipped_bytes": 42 }],
    ]);
  });

  it("a window that only repaired a crash mid-tool: the compaction span says so; a failed strategy is an event of the turn", async () => {
    const hooks = new HookBus();
    const stop = otelHooks(hooks, { tracer });
    const context = new HistoryContextManager({ moduleName: "context-simple", options: {}, hooks });
    await context.addMessage({ role: "user", content: "list files" });
    await context.addMessage({ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }] });
    await hooks.emit("prompt:submit", { prompt: "go on" });
    await context.getMessagesForRequest(10_000);
    await hooks.emit("context:strategy_failed", { strategy: "summarize", index: 0, error: "summarizer down", code: "SUMMARIZER_TIMEOUT" });
    await hooks.emit("prompt:complete", { response: "ok" });
    stop();
    const [compaction, turn] = spans();
    expect(compaction!.name).toBe("amplifier.context.compact");
    expect(compaction!.parentSpanContext?.spanId).toBe(turn!.spanContext().spanId);
    expect(compaction!.attributes).toMatchObject({
      "amplifier.context.removed": 0,
      "amplifier.context.repaired.synthetic_results": 1,
      "amplifier.context.repaired.orphans_dropped": 0,
      "amplifier.context.repaired.placeholder": false,
    });
    expect(turn!.events.map((e) => [e.name, e.attributes])).toEqual([
      ["amplifier.context.strategy_failed", { "amplifier.strategy.name": "summarize", "amplifier.strategy.index": 0, "amplifier.strategy.error": "summarizer down", "error.type": "SUMMARIZER_TIMEOUT" }],
    ]);
  });

  it("with sessionSpan, turns are children of the session span; a failed session:end sets its status", async () => {
    const hooks = new HookBus();
    const stop = otelHooks(hooks, { tracer, sessionSpan: true });
    await hooks.emit("session:start", { sessionId: "s-2" });
    await hooks.emit("prompt:submit", { prompt: "go", runId: "r1" });
    await hooks.emit("prompt:complete", { response: "done", runId: "r1" });
    await hooks.emit("session:end", { sessionId: "s-2", status: "failed", error: new TypeError("boom") });
    stop();
    const [turn, session] = spans();
    expect(session!.name).toBe("amplifier.session");
    expect(session!.attributes["gen_ai.conversation.id"]).toBe("s-2");
    expect(session!.status.code).toBe(2);
    expect(session!.attributes["error.type"]).toBe("TypeError");
    expect(turn!.name).toBe("invoke_agent");
    expect(turn!.parentSpanContext?.spanId).toBe(session!.spanContext().spanId);
  });

  it("a loop that failed ends its turn with status error; a hook that threw is an event of the turn", async () => {
    const hooks = new HookBus();
    hooks.register("tool:pre", () => {
      throw new Error("policy service down");
    }, { name: "policy" });
    const stop = otelHooks(hooks, { tracer });
    await hooks.emit("prompt:submit", { prompt: "deploy", runId: "r7" });
    await hooks.emit("tool:pre", { tool: "deploy", callId: "c1", input: {} });
    await hooks.emit("execution:end", { status: "failed", runId: "r7" });
    await hooks.emit("prompt:submit", { prompt: "again", runId: "r8" });
    await hooks.emit("orchestrator:complete", { status: "cancelled" });
    stop();
    const byName = spans().map((s) => [s.name, s.status.code, s.attributes["amplifier.turn.status"], s.attributes["amplifier.span.abandoned"]]);
    expect(byName).toEqual([
      ["invoke_agent", 2, "failed", undefined],
      ["invoke_agent", 0, "cancelled", undefined],
      ["execute_tool deploy", 0, undefined, true], // its tool:post never came: ended at teardown
    ]);
    const [failed] = spans();
    expect(failed!.attributes["error.type"]).toBe("turn_failed");
    expect(failed!.events.map((e) => [e.name, e.attributes])).toEqual([
      ["amplifier.hook.error", { "amplifier.hook.name": "policy", "amplifier.hook.event": "tool:pre", "amplifier.hook.fail_closed": false, "amplifier.hook.error": expect.stringContaining("policy service down"), "error.type": "HOOK_FAILED" }],
    ]);
  });

  it("calls of two providers in flight pair with their own answers; usage_invalid is an event of its call", async () => {
    const hooks = new HookBus();
    const stop = otelHooks(hooks, { tracer });
    await hooks.emit("provider:request", { ...request, maxOutputTokens: 1024, stream: true });
    await hooks.emit("provider:request", { provider: "openai-responses", model: "gpt-4.1", messages: request.messages });
    await hooks.emit("provider:usage_invalid", { provider: "openai-responses", model: "gpt-4.1", field: "usage.input_tokens", given: -1, expected: "a non-negative safe integer" });
    await hooks.emit("provider:response", { provider: "openai-responses", model: "gpt-4.1-2025-04-14", message: answer, stopReason: "completed" });
    await hooks.emit("provider:response", { provider: "anthropic", model: "claude-sonnet-4-20250514", message: answer, stopReason: "end_turn", usage: { inputTokens: 120, outputTokens: 7, cacheWriteTokens: 100 } });
    await new Promise((resolve) => setImmediate(resolve));
    stop();
    const byName = Object.fromEntries(spans().map((s) => [s.name, s]));
    expect(byName["chat claude-sonnet-4"]!.attributes).toMatchObject({
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.max_tokens": 1024,
      "gen_ai.request.stream": true,
      "gen_ai.response.model": "claude-sonnet-4-20250514",
      "gen_ai.response.finish_reasons": ["end_turn"],
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 7,
      "gen_ai.usage.cache_creation.input_tokens": 100,
    });
    const responses = byName["chat gpt-4.1"]!;
    expect(responses.attributes).toMatchObject({ "gen_ai.provider.name": "openai", "amplifier.provider.api": "openai-responses", "gen_ai.response.model": "gpt-4.1-2025-04-14" });
    expect(responses.events.map((e) => [e.name, e.attributes])).toEqual([["amplifier.provider.usage_invalid", { "amplifier.usage_invalid.field": "usage.input_tokens", "amplifier.usage_invalid.given": "-1", "amplifier.usage_invalid.expected": "a non-negative safe integer" }]]);
  });

  it("with captureContent, the window sent and the answer are on the call, in the conventions' message shape", async () => {
    const hooks = new HookBus();
    const stop = otelHooks(hooks, { tracer, captureContent: true });
    const window: Message[] = [
      { role: "developer", content: "Be brief." },
      { role: "user", content: "Summary of turns 1-40: the build was fixed.", metadata: { id: "s1", timestamp: "2026-11-28T00:00:00.000Z", summary: { covers: ["m1", "m2"] } } },
      { role: "user", content: [{ type: "text", text: "What is in it?" }, { type: "image_url", image_url: { url: "https://example.com/a.png" } }, { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }] },
      { role: "assistant", content: "", tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } }] },
      { role: "tool", tool_call_id: "call_1", content: "hello" },
      { role: "assistant", content: [{ type: "thinking", thinking: "Now grep.", signature: "sig" }, { type: "tool_use", id: "toolu_2", name: "grep", input: { pattern: "x" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "no match" }] }] },
    ];
    await hooks.emit("provider:request", { provider: "openai-chat", model: "gpt-4o", messages: window });
    await hooks.emit("provider:response", { provider: "openai-chat", model: "gpt-4o", message: { role: "assistant", content: "It says hello." }, stopReason: "stop" });
    await new Promise((resolve) => setImmediate(resolve));
    stop();
    const [chat] = spans();
    expect(JSON.parse(chat!.attributes["gen_ai.input.messages"] as string)).toEqual([
      { role: "system", parts: [{ type: "text", content: "Be brief." }] },
      { role: "user", parts: [{ type: "compaction", content: "Summary of turns 1-40: the build was fixed." }] },
      { role: "user", parts: [{ type: "text", content: "What is in it?" }, { type: "uri", modality: "image", uri: "https://example.com/a.png" }, { type: "image", omitted: "inline data" }] },
      { role: "assistant", parts: [{ type: "tool_call", id: "call_1", name: "read_file", arguments: { path: "a.txt" } }] },
      { role: "tool", parts: [{ type: "tool_call_response", id: "call_1", response: "hello" }] },
      { role: "assistant", parts: [{ type: "reasoning", content: "Now grep." }, { type: "tool_call", id: "toolu_2", name: "grep", arguments: { pattern: "x" } }] },
      { role: "user", parts: [{ type: "tool_call_response", id: "toolu_2", response: "no match" }] },
    ]);
    expect(JSON.parse(chat!.attributes["gen_ai.output.messages"] as string)).toEqual([{ role: "assistant", parts: [{ type: "text", content: "It says hello." }], finish_reason: "stop" }]);
  });

  it("a tool that throws: execute_tool with status error and error.type; a result marked isError too", async () => {
    const hooks = new HookBus();
    const stop = otelHooks(hooks, { tracer, captureContent: true });
    await hooks.emit("tool:pre", { tool: "read_file", callId: "c1", input: { path: "a" } });
    await hooks.emit("tool:pre", { tool: "grep", callId: "c2", input: { pattern: "x" } });
    await hooks.emit("tool:error", { tool: "read_file", callId: "c1", input: { path: "a" }, error: Object.assign(new Error("ENOENT: no such file"), { code: "ENOENT" }) });
    await hooks.emit("tool:post", { tool: "grep", callId: "c2", input: { pattern: "x" }, result: { output: "bad pattern", isError: true } });
    stop();
    const [read, grep] = spans();
    expect(read!.attributes).toMatchObject({ "gen_ai.tool.name": "read_file", "gen_ai.tool.call.id": "c1", "error.type": "ENOENT", "gen_ai.tool.call.arguments": '{"path":"a"}' });
    expect(read!.status).toEqual({ code: 2, message: "ENOENT: no such file" });
    expect(grep!.attributes).toMatchObject({ "error.type": "tool_error", "gen_ai.tool.call.result": '{"output":"bad pattern","isError":true}' });
    expect(grep!.status.code).toBe(2);
  });

  it("300 turns of calls and tools: every span closed by its own event, each under its own turn, nothing abandoned", async () => {
    const hooks = new HookBus();
    const stop = otelHooks(hooks, { tracer, maxOpenSpans: 4, captureContent: true });
    for (let t = 0; t < 300; t++) {
      await hooks.emit("prompt:submit", { prompt: `turn ${t}` });
      for (let step = 0; step < 2; step++) {
        await hooks.emit("provider:request", request);
        await hooks.emit("provider:response", { ...request, message: answer, usage: { inputTokens: t, outputTokens: step } });
        await hooks.emit("tool:pre", { tool: "t", callId: `c${t}.${step}`, input: {} });
        await hooks.emit("tool:post", { tool: "t", callId: `c${t}.${step}`, input: {}, result: { output: "ok" } });
      }
      await hooks.emit("prompt:complete", { response: "done" });
    }
    await new Promise((resolve) => setImmediate(resolve));
    stop();
    const all = spans();
    expect(all).toHaveLength(300 * 5);
    expect(all.filter((s) => s.attributes["amplifier.span.abandoned"] !== undefined)).toEqual([]);
    const turns = new Map(all.filter((s) => s.name === "invoke_agent").map((s) => [s.spanContext().spanId, s]));
    expect(turns.size).toBe(300);
    for (const span of all.filter((s) => s.name !== "invoke_agent")) {
      const turn = turns.get(span.parentSpanContext?.spanId ?? "");
      expect(turn, span.name).toBeDefined();
      const t = span.name.startsWith("chat") ? span.attributes["gen_ai.usage.input_tokens"] : Number(String(span.attributes["gen_ai.tool.call.id"]).slice(1).split(".")[0]);
      expect(JSON.parse(turn!.attributes["gen_ai.input.messages"] as string)[0].parts[0].content).toBe(`turn ${t}`);
    }
  });

  it("memory is bounded by the spans open at once: past maxOpenSpans the oldest is ended as abandoned, the rest at teardown", async () => {
    const hooks = new HookBus();
    const stop = otelHooks(hooks, { tracer, maxOpenSpans: 8 });
    for (let i = 0; i < 100; i++) await hooks.emit("tool:pre", { tool: "t", callId: `c${i}`, input: {} });
    expect(spans()).toHaveLength(92);
    expect(spans()[0]!.attributes["gen_ai.tool.call.id"]).toBe("c0");
    stop();
    expect(spans()).toHaveLength(100);
    expect(spans().every((s) => s.attributes["amplifier.span.abandoned"] === true)).toBe(true);
    await hooks.emit("tool:pre", { tool: "t", callId: "after", input: {} });
    expect(hooks.hasListeners?.("tool:pre")).toBe(false);
  });

  it("never throws into the bus: a broken tracer is reported on the OpenTelemetry diag logger, the emit goes on", async () => {
    const warnings: unknown[][] = [];
    diag.setLogger({ error: () => {}, warn: (...args: unknown[]) => void warnings.push(args), info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
    const broken = { startSpan: () => { throw new Error("exporter gone"); }, startActiveSpan: () => { throw new Error("exporter gone"); } } as unknown as Tracer;
    const hooks = new HookBus();
    const hookErrors: unknown[] = [];
    hooks.on("hook:error", (e) => void hookErrors.push(e));
    const stop = otelHooks(hooks, { tracer: broken });
    const result = await hooks.emit("provider:request", request);
    stop();
    diag.disable();
    expect(result.action).toBe("continue");
    expect(hookErrors).toEqual([]);
    expect(String(warnings[0]?.[0])).toContain("provider:request not traced");
  });

  it("a tracer that is not one: OTEL/INVALID_TRACER naming what is expected", () => {
    let thrown: unknown;
    try {
      otelHooks(new HookBus(), { tracer: {} as Tracer });
    } catch (error) {
      thrown = error;
    }
    expect(isAmplifierError(thrown, "OTEL/INVALID_TRACER")).toBe(true);
    expect((thrown as { expected?: string }).expected).toMatch(/OpenTelemetry Tracer/);
  });
});
