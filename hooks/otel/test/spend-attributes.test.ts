import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Summarizer } from "../../../contracts/index.js";
import { HookBus } from "../../../core/hooks/index.js";
import { HistoryContextManager } from "../../../modules/context-manager/history-context-manager.js";
import { registerModel } from "../../../modules/tokens/index.js";
import { otelHooks } from "../index.js";

/** Issue 29 §2: what a session spent on the conversation, on compaction and on cache writes, as span attributes. */
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("spend-attributes.test");
beforeEach(() => exporter.reset());

// $ per million: input 3, cached 0.3, cache write 3.75, output 15.
const MODEL = "otel-spend-test";
let undo: () => void;
beforeAll(() => {
  undo = registerModel(MODEL, { contextWindow: 200_000, maxOutputTokens: 8_000, encoding: "o200k_base", family: "anthropic", provider: "test", safetyFactor: 1, prices: { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, asOf: "2026-11-28", source: "test" } });
});
afterAll(() => undo());

const answer = { role: "assistant" as const, content: "ok" };
const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `w${(i * 7 + seed) % 997}`).join(" ");

describe("spend as span attributes", () => {
  it("each chat span says whose bill and its cost by part; the turn and session spans carry the session's split", async () => {
    const hooks = new HookBus();
    const stop = otelHooks(hooks, { tracer, sessionSpan: true });
    const summarizer: Summarizer = {
      name: "billed-fake",
      async summarize() {
        await hooks.emit("provider:request", { provider: "test", model: MODEL, messages: [{ role: "user", content: "summarize" }] });
        await hooks.emit("provider:response", { provider: "test", model: MODEL, message: answer, usage: { inputTokens: 4_000, outputTokens: 300 } });
        return "summary of the older turns";
      },
    };
    const context = new HistoryContextManager({
      moduleName: "context-simple",
      options: { spill: false, model: MODEL, strategies: [{ use: "summarization", recentTokenBudget: 400, minOldTokens: 50, summaryMaxTokens: 200 }] },
      hooks,
      summarizer,
    });
    await hooks.emit("session:start", { sessionId: "s1" });
    await hooks.emit("prompt:submit", { prompt: "go" });
    for (let t = 0; t < 12; t++) {
      await context.addMessage({ role: "user", content: words(60, t) });
      await context.addMessage({ role: "assistant", content: words(60, t + 300) });
    }
    const window = await context.getMessagesForRequest(50_000);
    await hooks.emit("provider:request", { provider: "test", model: MODEL, messages: window });
    await hooks.emit("provider:response", { provider: "test", model: MODEL, message: answer, usage: { inputTokens: 10_000, cacheReadTokens: 6_000, cacheWriteTokens: 2_000, outputTokens: 500 } });
    await new Promise((r) => setImmediate(r));
    await hooks.emit("prompt:complete", { response: "ok" });
    await hooks.emit("session:end", { sessionId: "s1", status: "completed" } as never);
    stop();
    await context.close();

    const chats = exporter.getFinishedSpans().filter((s) => s.name.startsWith("chat"));
    expect(chats).toHaveLength(2);
    const [summary, conversation] = chats;
    // The summarizer's call: 4,000 × 3 + 300 × 15 = 16,500 µ$, all compaction.
    expect(summary!.attributes["amplifier.usage.kind"]).toBe("summarizer");
    expect(summary!.attributes["amplifier.usage.compaction.cost_usd"]).toBeCloseTo(0.0165, 12);
    expect(summary!.attributes["amplifier.usage.conversation.cost_usd"]).toBe(0);
    // The answer: 2,000 × 3 + 6,000 × 0.3 + 500 × 15 = 15,300 µ$; writes 2,000 × 3.75 = 7,500 µ$.
    expect(conversation!.attributes["amplifier.usage.kind"]).toBe("conversation");
    expect(conversation!.attributes["amplifier.usage.conversation.cost_usd"]).toBeCloseTo(0.0153, 12);
    expect(conversation!.attributes["amplifier.usage.cache_creation.cost_usd"]).toBeCloseTo(0.0075, 12);
    expect(conversation!.attributes["amplifier.usage.cost_usd"]).toBeCloseTo(0.0228, 12);
    expect(conversation!.attributes["gen_ai.usage.cache_creation.input_tokens"]).toBe(2_000);
    for (const name of ["invoke_agent", "amplifier.session"]) {
      const span = exporter.getFinishedSpans().find((s) => s.name === name)!;
      expect(span, name).toBeDefined();
      expect(span.attributes).toMatchObject({
        "amplifier.session.usage.conversation.input_tokens": 8_000,
        "amplifier.session.usage.conversation.output_tokens": 500,
        "amplifier.session.usage.compaction.input_tokens": 4_000,
        "amplifier.session.usage.compaction.output_tokens": 300,
        "amplifier.session.usage.compaction.summarizer_calls": 1,
        "amplifier.session.usage.compaction.provider_compactions": 0,
        "amplifier.session.usage.cache_creation.input_tokens": 2_000,
      });
      expect(span.attributes["amplifier.session.usage.conversation.cost_usd"]).toBeCloseTo(0.0153, 12);
      expect(span.attributes["amplifier.session.usage.compaction.cost_usd"]).toBeCloseTo(0.0165, 12);
      expect(span.attributes["amplifier.session.usage.cache_creation.cost_usd"]).toBeCloseTo(0.0075, 12);
      expect(span.attributes["amplifier.session.usage.cost_usd"]).toBeCloseTo(0.0393, 12);
      expect(span.attributes["amplifier.session.usage.compaction.cost_share"]).toBeCloseTo(0.0165 / 0.0393, 12);
    }
  });

  it("a compaction decided by the cost policy carries its decision on the compaction span", async () => {
    const hooks = new HookBus();
    const stop = otelHooks(hooks, { tracer });
    const context = new HistoryContextManager({ moduleName: "context-simple", options: { spill: false, model: MODEL, compactionPolicy: { policy: "cost", horizonTurns: 3 } }, hooks });
    await hooks.emit("prompt:submit", { prompt: "go" });
    await context.addMessage({ role: "system", content: "You answer." });
    for (let t = 0; t < 60; t++) {
      await context.addMessage({ role: "user", content: words(60, t) });
      await context.getMessagesForRequest(10_000);
      await context.addMessage({ role: "assistant", content: words(60, t + 500) });
    }
    await new Promise((r) => setImmediate(r));
    await hooks.emit("prompt:complete", { response: "ok" });
    stop();
    const compactions = exporter.getFinishedSpans().filter((s) => s.name === "amplifier.context.compact" && s.attributes["amplifier.context.compaction.compact"] === true);
    expect(compactions.length).toBeGreaterThan(0);
    const decided = compactions[0]!.attributes;
    expect(decided["amplifier.context.compaction.policy"]).toBe("cost");
    expect(decided["amplifier.context.compaction.horizon_turns"]).toBe(3);
    expect(String(decided["amplifier.context.compaction.reason"])).toMatch(/^cost policy: /);
    expect(decided["amplifier.context.compaction.target_tokens"]).toBe(7_000);
  });
});
