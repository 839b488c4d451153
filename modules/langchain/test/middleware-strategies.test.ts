import type { CompactionStrategy, Message } from "@amplifier-ts/contracts";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, tool } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { API_KEY, startFakeApiServer, type FakeApiServer } from "../../../test/providers/fake-api-server.js";
import { fitWindowMiddleware } from "../index.js";

/**
 * fitWindowMiddleware({ strategies }): compaction strategies run before the final fit of every model
 * call, awaited, over the conversation as our messages; what they make reaches the model as
 * LangChain messages, and the agent's state keeps the conversation as it was.
 */
const ELIDED = "[result elided: read it again if needed]";
const TURNS = 6;

/** An asynchronous strategy: every tool result before the last user message is replaced (new objects; the input is not changed). */
const calls: { given: number }[] = [];
const elideOldResults: CompactionStrategy = {
  name: "elide-old-results",
  async compact(messages: readonly Message[]) {
    await new Promise((resolve) => setImmediate(resolve));
    calls.push({ given: messages.length });
    const lastUser = messages.findLastIndex((m) => m.role === "user");
    return messages.map((m, i) => (m.role === "tool" && i < lastUser ? { ...m, content: ELIDED } : m));
  },
};

/** A Chat Completions content as text (LangChain sends the system message as text parts). */
const textOf = (content: unknown): string => (typeof content === "string" ? content : Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? "").join("") : "");

const resultText = (turn: number) => `result of turn ${turn}: ` + "the measured figure is stable; ".repeat(20);

let fake: FakeApiServer;
let state: BaseMessage[] = [];

beforeAll(async () => {
  fake = await startFakeApiServer((_api, body, index) => {
    const messages = body.messages as { role: string; content: unknown }[];
    const last = messages[messages.length - 1]!;
    const turn = Number(/question (\d+)/.exec(String(messages.findLast((m) => m.role === "user")?.content))?.[1] ?? -1);
    if (last.role === "tool") return { id: `chatcmpl-${index}`, text: `Answer ${turn}.` };
    return { id: `chatcmpl-${index}`, text: "", toolCalls: [{ id: `call_${turn}`, name: "lookup", arguments: { turn } }] };
  });
  const lookup = tool(async ({ turn }) => resultText(turn), { name: "lookup", description: "Looks a turn up.", schema: z.object({ turn: z.number() }) });
  const agent = createAgent({
    model: new ChatOpenAI({ model: "gpt-4o", apiKey: API_KEY, configuration: { baseURL: `${fake.url}/v1` } }),
    tools: [lookup],
    systemPrompt: "You are terse.",
    middleware: [fitWindowMiddleware({ budget: 20_000, strategies: [elideOldResults] })],
  });
  for (let turn = 0; turn < TURNS; turn++) {
    const result = await agent.invoke({ messages: [...state, new HumanMessage(`question ${turn}`)] }, { configurable: { thread_id: "t" } });
    state = result.messages;
  }
}, 120_000);

afterAll(async () => {
  await fake?.close();
});

describe("fitWindowMiddleware({ strategies })", () => {
  it("runs the strategy before every model call, over the whole conversation (system message included)", () => {
    expect(fake.received).toHaveLength(TURNS * 2);
    expect(calls).toHaveLength(TURNS * 2);
    // Call k of turn t sees the system message, every earlier turn (4 messages each), the prompt, and the call + result on the second call.
    calls.forEach(({ given }, k) => expect(given).toBe(1 + 4 * Math.floor(k / 2) + 1 + (k % 2) * 2));
  });

  it("the model receives the strategy's output: earlier results elided, the turn in progress whole; every request valid", () => {
    for (const { body, problems } of fake.received) {
      expect(problems).toEqual([]);
      const messages = body.messages as { role: string; content: unknown }[];
      expect(messages[0]!.role).toBe("system");
      expect(textOf(messages[0]!.content)).toBe("You are terse.");
      const lastUser = messages.findLastIndex((m) => m.role === "user");
      messages.forEach((m, i) => {
        if (m.role !== "tool") return;
        if (i < lastUser) expect(textOf(m.content)).toBe(ELIDED);
        else expect(textOf(m.content)).toMatch(/^result of turn \d+: the measured figure/);
      });
    }
    const last = fake.received[fake.received.length - 1]!.body.messages as { role: string; content: unknown }[];
    expect(last.filter((m) => m.role === "tool" && textOf(m.content) === ELIDED)).toHaveLength(TURNS - 1);
  });

  it("the agent's state keeps every result as the tool returned it", () => {
    const results = state.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(results).toHaveLength(TURNS);
    results.forEach((m, turn) => expect(m.content).toBe(resultText(turn)));
  });

  it("strategies that are not compaction strategies: LANGCHAIN/UNSUPPORTED_OPTION naming the option", () => {
    expect(() => fitWindowMiddleware({ budget: 1_000, strategies: [{ name: "x" } as unknown as CompactionStrategy] })).toThrow(expect.objectContaining({ code: "LANGCHAIN/UNSUPPORTED_OPTION", details: expect.objectContaining({ path: "strategies" }) }));
  });
});
