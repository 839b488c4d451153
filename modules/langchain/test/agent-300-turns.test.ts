import type { Message, ToolDefinition } from "@amplifier-ts/contracts";
import { fromOpenAIChat, type ChatMessage } from "@amplifier-ts/adapters";
import { getTokenCounter } from "@amplifier-ts/tokens";
import { INTERRUPTED_RESULT_TEXT, type FitReport } from "@amplifier-ts/window";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, tool } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { API_KEY, startFakeApiServer, type FakeApiServer, type Reply } from "../../../test/providers/fake-api-server.js";
import { fitWindowMiddleware } from "../index.js";

/**
 * Issue 27, "done when", for LangChain.js v1: an agent of 300 turns with tool calls, built with
 * `createAgent` (langchain 1.x) and ChatOpenAI (@langchain/openai, Chat Completions) against the
 * local fake OpenAI server, with `fitWindowMiddleware` as its one added line. Every request the fake
 * receives is checked:
 * - valid for the API (the fake applies test/adapters/api-rules.ts and answers 400 otherwise: 0 problems);
 * - under the budget, counted INDEPENDENTLY of the middleware: from the JSON body the fake received
 *   (fromOpenAIChat → @amplifier-ts/tokens' gpt-4o counter: messages + reply priming + the body's `tools`);
 * - tool pairs intact: every call followed by all its results, every result after its call (api-rules),
 *   and no made-up result (every call of this history has its real result);
 * - prefix kept: the share of the previous request's messages that the next one starts with,
 *   averaged over consecutive requests, ≥ 95 %.
 */
const TURNS = 300;
const BUDGET = 32_000;
const SYSTEM = "You are a careful research agent. Use the tools, then answer in one paragraph.";

/** Deterministic tool output: 150–2,400 characters, now and then much more (the ladder caps it). */
function toolOutput(query: string, turn: number, k: number): string {
  const size = turn % 53 === 7 && k === 0 ? 40_000 : 150 + ((turn * 7919 + k * 104_729) % 2_250);
  const line = `[${query}] finding ${turn}.${k}: the measured figure moved by ${(turn * 13 + k) % 97} units; `;
  return line.repeat(Math.ceil(size / line.length)).slice(0, size);
}

/** The scripted model: per turn, one or two rounds of tool calls (sometimes two in parallel), then an answer. */
function scriptedReply(body: Record<string, unknown>, index: number): Reply {
  const messages = body.messages as { role: string; content: unknown; tool_calls?: unknown[] }[];
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  const turn = Number(/question (\d+)/.exec(String(messages[lastUser]?.content))?.[1] ?? -1);
  const rounds = messages.slice(lastUser + 1).filter((m) => m.role === "assistant" && m.tool_calls).length;
  const wanted = turn % 4 === 3 ? 2 : 1;
  const id = `chatcmpl-${index}`;
  if (rounds >= wanted) return { id, text: `Answer ${turn}: the figures agree within ${turn % 11} units.` };
  const parallel = turn % 3 === 0 ? 2 : 1;
  return {
    id,
    text: rounds === 0 ? "" : "Checking one more source.",
    toolCalls: Array.from({ length: parallel }, (_, k) => ({ id: `call_${index}_${k}`, name: k === 0 ? "search" : "fetch_page", arguments: k === 0 ? { query: `topic ${turn}` } : { url: `https://example.org/${turn}` } })),
  };
}

let fake: FakeApiServer;
const reports: FitReport[] = [];
let history: BaseMessage[] = [];

beforeAll(async () => {
  fake = await startFakeApiServer((_api, body, index) => scriptedReply(body, index));
  let turn = 0;
  const search = tool(async ({ query }) => toolOutput(query, turn, 0), { name: "search", description: "Searches the research notes.", schema: z.object({ query: z.string().describe("What to look for") }) });
  const fetchPage = tool(async ({ url }) => toolOutput(url, turn, 1), { name: "fetch_page", description: "Fetches a page.", schema: z.object({ url: z.string() }) });
  const agent = createAgent({
    model: new ChatOpenAI({ model: "gpt-4o", apiKey: API_KEY, configuration: { baseURL: `${fake.url}/v1` } }),
    tools: [search, fetchPage],
    systemPrompt: SYSTEM,
    middleware: [fitWindowMiddleware({ budget: BUDGET, onWindow: (report) => void reports.push(report) })],
  });
  for (turn = 0; turn < TURNS; turn++) {
    const result = await agent.invoke({ messages: [...history, new HumanMessage(`question ${turn}: what do the notes say about topic ${turn}?`)] }, { configurable: { thread_id: "research" } });
    history = result.messages;
  }
}, 600_000);

afterAll(async () => {
  await fake?.close();
});

describe("createAgent + fitWindowMiddleware, 300 turns with tool calls, against the fake OpenAI server", () => {
  it("ran every turn: the agent's state keeps the whole conversation (the middleware trims only what the model is sent)", () => {
    const humans = history.filter((m) => m.getType() === "human").length;
    const calls = history.flatMap((m) => ("tool_calls" in m ? ((m as { tool_calls?: unknown[] }).tool_calls ?? []) : []));
    const results = history.filter((m) => m.getType() === "tool").length;
    expect(humans).toBe(TURNS);
    expect(calls.length).toBeGreaterThan(TURNS);
    expect(results).toBe(calls.length);
    expect(fake.received.length).toBe(reports.length);
    expect(fake.received.length).toBeGreaterThan(2 * TURNS);
  });

  it("every request is valid for the Chat Completions API: 0 problems", () => {
    const problems = fake.received.flatMap((r, i) => r.problems.map((p) => `request ${i}: ${p}`));
    expect(problems).toEqual([]);
    expect(fake.received.every((r) => r.api === "chat")).toBe(true);
  });

  it("every request is under the budget, counted independently from the body the fake received", () => {
    const counter = getTokenCounter("gpt-4o");
    const cache = new Map<string, number>();
    const counts = fake.received.map(({ body }) => {
      const raw = body.messages as ChatMessage[];
      const messages = fromOpenAIChat(raw);
      let total = counter.replyPriming + counter.countTools((body.tools ?? []) as ToolDefinition[]);
      messages.forEach((m: Message, i) => {
        const key = JSON.stringify(raw[i]);
        let n = cache.get(key);
        if (n === undefined) cache.set(key, (n = counter.countMessage(m)));
        total += n;
      });
      return total;
    });
    const over = counts.flatMap((n, i) => (n > BUDGET ? [`request ${i}: ${n} > ${BUDGET}`] : []));
    expect(over).toEqual([]);
    // The window was full when it mattered: the history outgrew the budget many times over.
    expect(Math.max(...counts)).toBeGreaterThan(0.8 * BUDGET);
    // The middleware's own count is the independent one (what it fitted is what was sent).
    expect(reports.map((r) => r.tokens)).toEqual(counts);
    console.log(`requests ${counts.length}; tokens per request: max ${Math.max(...counts)}, mean ${Math.round(counts.reduce((a, b) => a + b, 0) / counts.length)} (budget ${BUDGET})`);
  });

  it("tool pairs are intact: every call with all its real results, no orphan, no made-up result", () => {
    const broken: string[] = [];
    fake.received.forEach(({ body }, i) => {
      const messages = body.messages as { role: string; content: unknown; tool_call_id?: string; tool_calls?: { id: string }[] }[];
      messages.forEach((m, k) => {
        if (m.role === "tool" && JSON.stringify(m.content).includes(INTERRUPTED_RESULT_TEXT)) broken.push(`request ${i}: made-up result at ${k}`);
        if (!m.tool_calls) return;
        const answered = messages.slice(k + 1, k + 1 + m.tool_calls.length).map((r) => (r.role === "tool" ? r.tool_call_id : undefined));
        if (JSON.stringify(answered) !== JSON.stringify(m.tool_calls.map((c) => c.id))) broken.push(`request ${i}: call at ${k} not followed by its results`);
      });
      const first = messages.findIndex((m) => m.role !== "system");
      if (messages[first]?.role !== "user") broken.push(`request ${i}: the first message after the system message is ${messages[first]?.role}`);
    });
    expect(broken).toEqual([]);
  });

  it("keeps the prefix: on average ≥ 95 % of the previous request's messages start the next one", () => {
    const shares: number[] = [];
    for (let i = 1; i < fake.received.length; i++) {
      const previous = (fake.received[i - 1]!.body.messages as unknown[]).map((m) => JSON.stringify(m));
      const next = (fake.received[i]!.body.messages as unknown[]).map((m) => JSON.stringify(m));
      let shared = 0;
      while (shared < previous.length && previous[shared] === next[shared]) shared++;
      shares.push(shared / previous.length);
    }
    const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
    const cuts = shares.filter((s) => s < 1).length;
    console.log(`prefix kept: mean ${(100 * mean).toFixed(2)} % over ${shares.length} consecutive pairs; ${cuts} pairs below 100 % (cuts); dropped at the last request: ${reports.at(-1)?.dropped} of ${reports.at(-1)?.given}`);
    expect(cuts).toBeGreaterThan(0);
    expect(mean).toBeGreaterThanOrEqual(0.95);
  });
});
