/**
 * The turn in progress — the latest assistant message that issued tool calls, its thinking, and
 * the results answering them — is never dropped: not by a strategy, not by a pipeline, not by the
 * window. Without it the model calls its tool again (forever), and Anthropic with extended
 * thinking refuses the request (the signed thinking of the tool turn is required until it completes).
 */
import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { z } from "zod";
import { defineStrategy } from "../../contracts/strategy-definition.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";

function manager(strategies: unknown[]) {
  return new HistoryContextManager({ moduleName: "context-simple", options: { strategies: strategies as never } });
}

const filler = (n: number, words: number) => Array.from({ length: words }, (_, i) => `w${n}x${i}`).join(" ");

/** `turns` Anthropic turns with thinking; the last is in progress (its tool result is the last message). */
function history(turns: number, { thinkingRepeat = 12, resultWords = 6, answerWords = 2 } = {}): Message[] {
  const turn = (n: number): Message[] => [
    { role: "user", content: `task ${n}`, metadata: { id: `u${n}` } },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: `I should grep for task ${n}. `.repeat(thinkingRepeat), signature: `sig-${n}-Ab+/=` },
        { type: "tool_use", id: `toolu_${n}`, name: "grep", input: { pattern: `task ${n}` } },
      ],
      metadata: { id: `a${n}` },
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${n}`, content: `match for task ${n}: ${filler(n, resultWords)}` }], metadata: { id: `r${n}` } },
  ];
  const out: Message[] = [{ role: "system", content: "You are terse.", metadata: { id: "sys" } }];
  for (let n = 0; n < turns; n++) {
    out.push(...turn(n));
    if (n < turns - 1) out.push({ role: "assistant", content: `done ${n} ${filler(n, answerWords)}`, metadata: { id: `f${n}` } });
  }
  return out;
}

describe("the turn in progress is never dropped", () => {
  it("truncation maxChars 300 over three small turns with thinking keeps the tool call, its thinking and its result", async () => {
    // Before: [system, "task 2"] — the call and its result were cut, so the model would call again.
    const context = manager([{ use: "truncation", maxChars: 300 }]);
    const stored = history(3);
    await context.setMessages(stored);
    const before = structuredClone(await context.getMessages());
    const window = await context.getMessagesForRequest(20_000);
    expect(window.map((m) => m.metadata?.id)).toEqual(["sys", "u2", "a2", "r2"]);
    expect(JSON.stringify(window[2]!.content)).toBe(JSON.stringify(stored.at(-2)!.content));
    expect(await context.getMessages()).toEqual(before);
  });

  // Every strategy alone and the documented pipelines, with limits far below the turn in progress.
  const configs: Record<string, unknown[]> = {
    truncation: [{ use: "truncation", maxMessages: 1, maxChars: 50 }],
    "sliding-window": [{ use: "sliding-window", maxMessages: 1 }],
    "selective-tool-call": [{ use: "selective-tool-call", keepRecentGroups: 0 }],
    "message-window": [{ use: "message-window", n: 1 }],
    "token-window": [{ use: "token-window", maxTokens: 20 }],
    "token-budget": [{ use: "token-budget", budget: 100 }],
    "tool-result-compaction": [{ use: "tool-result-compaction", maxChars: 40 }],
    summarization: [{ use: "summarization", recentTokenBudget: 50, minOldTokens: 10, summaryMaxTokens: 60 }],
    summarizing: [{ use: "summarizing", threshold: 0.2, recentRatio: 0.05, summaryMaxTokens: 60, contextWindow: 2_000 }],
    hybrid: [{ use: "hybrid", recentN: 1, maxTotal: 2 }],
    recall: [{ use: "recall", k: 2 }],
    "seed pipeline": [
      { use: "tool-result-compaction", maxChars: 500 },
      { use: "selective-tool-call", keepRecentGroups: 1 },
      { use: "sliding-window", maxMessages: 2 },
    ],
    "token-budget over children": [
      {
        use: "token-budget",
        budget: 200,
        strategies: [
          { use: "tool-result-compaction", maxChars: 40 },
          { use: "selective-tool-call", keepRecentGroups: 0 },
          { use: "sliding-window", maxMessages: 1 },
          { use: "truncation", maxMessages: 1 },
        ],
      },
    ],
  };
  for (const [name, strategies] of Object.entries(configs)) {
    it(`${name}: keeps the call with its signed thinking byte-identical and its result (excerpted at most)`, async () => {
      const context = manager(strategies);
      const stored = history(12, { resultWords: 60, answerWords: 40 });
      await context.setMessages(stored);
      const before = structuredClone(await context.getMessages());
      for (const budget of [100_000, 3_000, 1_200]) {
        const window = await context.getMessagesForRequest(budget);
        const ids = window.map((m) => m.metadata?.id);
        expect(ids.slice(-3), `${name} at ${budget}`).toEqual(["u11", "a11", "r11"]);
        expect(JSON.stringify(window.at(-2)!.content)).toBe(JSON.stringify(stored.at(-2)!.content));
      }
      expect(await context.getMessages()).toEqual(before);
    });
  }
});

describe("the window keeps the turn in progress, excerpted, or fails typed with the numbers", () => {
  const big = Array.from({ length: 3_000 }, (_, i) => `w${i}`).join(" ");
  const stored = (): Message[] => [
    { role: "system", content: "sys", metadata: { id: "s" } },
    { role: "user", content: "task", metadata: { id: "u" } },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "think ".repeat(200), signature: "c2lnbmVk" },
        { type: "redacted_thinking", data: "b3BhcXVl" },
        { type: "tool_use", id: "t1", name: "grep", input: {} },
      ],
      metadata: { id: "a" },
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: big }], metadata: { id: "r" } },
  ];

  it("a result too large for the budget is excerpted; the call and its thinking are sent byte-identical", async () => {
    const context = manager([]);
    await context.setMessages(stored());
    const window = await context.getMessagesForRequest(600);
    expect(window.map((m) => m.metadata?.id)).toEqual(["s", "u", "a", "r"]);
    expect(JSON.stringify(window[2]!.content)).toBe(JSON.stringify(stored()[2]!.content));
    const result = JSON.stringify(window[3]!.content);
    expect(result.length).toBeLessThan(big.length);
    expect(result).toContain("w0 ");
  });

  it("when even its calls and thinking do not fit: BUDGET_TOO_SMALL with the budget and what the turn in progress needs", async () => {
    const context = manager([]);
    await context.setMessages(stored());
    const error = await context.getMessagesForRequest(100).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "BUDGET_TOO_SMALL", details: { budget: 100 } });
    const details = (error as { details: { required: number; inProgressMinimumTokens: number } }).details;
    expect(details.inProgressMinimumTokens).toBeGreaterThan(200);
    expect(details.required).toBeGreaterThan(details.inProgressMinimumTokens);
    expect(details.required).toBeGreaterThan(100);
  });
});

describe("a third party's strategy that drops the turn in progress", () => {
  // Keeps the instructions and the first user message only: it drops the call, its thinking and its result.
  const forgetful = defineStrategy({
    name: "test-forgetful",
    description: "instructions and the first prompt only",
    optionsSchema: z.object({}).strict(),
    create: () => ({
      name: "test-forgetful",
      compact: (messages: Message[]) => [...messages.filter((m) => m.role === "system"), messages.find((m) => m.role === "user")!],
    }),
  });
  // Keeps everything but shortens every tool result to its first 10 characters (a copy with the same id).
  const shortening = defineStrategy({
    name: "test-shortening",
    description: "results cut to 10 characters",
    optionsSchema: z.object({}).strict(),
    create: () => ({
      name: "test-shortening",
      compact: (messages: Message[]) =>
        messages.map((m) => (Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result") ? { ...m, content: m.content.map((b) => (b.type === "tool_result" ? { ...b, content: String(b.content).slice(0, 10) } : b)) } : m)),
    }),
  });

  it("the pipeline puts it back, verbatim, at the end of its output", async () => {
    const context = new HistoryContextManager({ moduleName: "context-simple", options: { strategies: [{ use: "test-forgetful" }] as never }, strategyDefinitions: [forgetful] });
    const stored = history(3);
    await context.setMessages(stored);
    const window = await context.getMessagesForRequest(20_000);
    expect(window.map((m) => m.metadata?.id)).toEqual(["sys", "u0", "a2", "r2"]);
    expect(JSON.stringify(window[2]!.content)).toBe(JSON.stringify(stored.at(-2)!.content));
  });

  it("a strategy that keeps it (its results shortened) is left as it is", async () => {
    const context = new HistoryContextManager({ moduleName: "context-simple", options: { strategies: [{ use: "test-shortening" }] as never }, strategyDefinitions: [shortening] });
    await context.setMessages(history(3));
    const window = await context.getMessagesForRequest(20_000);
    expect(window.at(-1)!.content).toEqual([{ type: "tool_result", tool_use_id: "toolu_2", content: "match for " }]);
  });
});
