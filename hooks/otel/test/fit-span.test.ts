import { context, trace, type Tracer } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { beforeEach, describe, expect, it } from "vitest";
import { createWindowFitter, fitWindow } from "../../../modules/window/index.js";
import { recordFitSpan } from "../index.js";

/**
 * Drop-in users of the window fitter (AI SDK, LangChain, Mastra loops) have no hook bus:
 * recordFitSpan turns the fit report into the same trace a session gives.
 */
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("fit-span.test");
beforeEach(() => exporter.reset());

/** An OpenAI Chat history: `turns` turns with a tool call each, far over the budget. */
function chatHistory(turns: number): unknown[] {
  const filler = (i: number) => Array.from({ length: 40 }, (_, k) => `w${(i * 13 + k) % 89}`).join(" ");
  return [
    { role: "system", content: "You are a careful coding agent." },
    ...Array.from({ length: turns }, (_, i) => [
      { role: "user", content: `step ${i}: ${filler(i)}` },
      { role: "assistant", content: null, tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "read_file", arguments: `{"path":"f${i}.txt"}` } }] },
      { role: "tool", tool_call_id: `call_${i}`, content: filler(i + 1) },
      { role: "assistant", content: `done ${i}` },
    ]).flat(),
  ];
}

describe("recordFitSpan: the standalone fitter's report as a span", () => {
  it("fitWindow(…, { report: true }).report → amplifier.context.fit with the window's numbers, under the caller's span", () => {
    const history = chatHistory(80);
    const { messages, report } = fitWindow(history, { model: "gpt-4o", budget: 2_000, report: true });
    const step = tracer.startSpan("agent step");
    recordFitSpan(tracer, report, { conversationId: "thread-7", parent: trace.setSpan(context.active(), step) });
    step.end();
    const [fit] = exporter.getFinishedSpans().filter((s) => s.name === "amplifier.context.fit");
    expect(fit!.parentSpanContext?.spanId).toBe(step.spanContext().spanId);
    expect(fit!.attributes).toMatchObject({
      "gen_ai.conversation.id": "thread-7",
      "amplifier.context.budget": 2_000,
      "amplifier.context.tokens_before": report.historyTokens,
      "amplifier.context.messages_before": history.length,
      "amplifier.context.tokens_after": report.tokens,
      "amplifier.context.messages_after": (messages as unknown[]).length,
      "amplifier.context.kept": report.kept,
      "amplifier.context.removed": report.dropped,
      "amplifier.context.compacted": true,
      "amplifier.context.format": "openai-chat",
      "amplifier.context.cut_reason": report.window.cutReason,
    });
    expect(fit!.attributes["amplifier.context.tokens_before"]).toBeGreaterThan(2_000);
    expect(fit!.attributes["amplifier.context.tokens_after"]).toBeLessThanOrEqual(2_000);
    expect(fit!.attributes["amplifier.context.removed"]).toBeGreaterThan(0);
    expect(fit!.attributes["amplifier.context.repaired.synthetic_results"]).toBeUndefined();
  });

  it("a fitter kept across calls: one span per fit, each with its own numbers", () => {
    const fitter = createWindowFitter({ model: "gpt-4o", budget: 2_000 });
    const history = chatHistory(40);
    const first = fitter.fit(history, { report: true }).report;
    history.push({ role: "user", content: "one more thing" });
    const second = fitter.fit(history, { report: true }).report;
    recordFitSpan(tracer, first);
    recordFitSpan(tracer, second);
    const fits = exporter.getFinishedSpans();
    expect(fits.map((s) => s.attributes["amplifier.context.messages_before"])).toEqual([history.length - 1, history.length]);
    expect(fits.map((s) => s.parentSpanContext)).toEqual([undefined, undefined]);
  });

  it("a tracer that fails to write never fails the caller; one that is not a tracer is OTEL/INVALID_TRACER", () => {
    const report = fitWindow(chatHistory(2), { model: "gpt-4o", budget: 2_000, report: true }).report;
    const broken = { startSpan: () => { throw new Error("exporter gone"); } } as unknown as Tracer;
    expect(() => recordFitSpan(broken, report)).not.toThrow();
    expect(() => recordFitSpan({} as Tracer, report)).toThrow(/OTEL\/INVALID_TRACER/);
  });
});
