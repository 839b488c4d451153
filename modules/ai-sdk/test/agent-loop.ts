/**
 * The agent the 300-turn tests run: a research loop on the real AI SDK (`ai` 6, generateText with
 * tools and stopWhen) and the real OpenAI provider (@ai-sdk/openai 3) pointed at the local fake
 * server. Each turn adds a user question to the caller's history; generateText runs tool steps
 * until the scripted model answers; the turn's response messages join the history. The same loop
 * runs with the prepareStep helper, with the middleware, and with neither (the overflow baseline).
 */
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, tool, type LanguageModel, type ModelMessage, type PrepareStepFunction } from "ai";
import { z } from "zod";
import { API_KEY, type Api, type Reply } from "../../../test/providers/fake-api-server.js";

export const MODEL = "gpt-4o-mini";
export const SYSTEM = "You are a careful research agent. Use the tools, then answer in one paragraph.";

export function provider(url: string) {
  return createOpenAI({ apiKey: API_KEY, baseURL: `${url}/v1` });
}

/** Deterministic tool output: 150–1,350 characters, and every 53rd turn one of 40,000 (the window caps it). */
export function toolOutput(query: string, turn: number, k: number): string {
  const size = turn % 53 === 7 && k === 0 ? 40_000 : 150 + ((turn * 7919 + k * 104_729) % 1_200);
  const line = `[${query}] finding ${turn}.${k}: the measured figure moved by ${(turn * 13 + k) % 97} units; `;
  return line.repeat(Math.ceil(size / line.length)).slice(0, size);
}

let currentTurn = 0;
export const tools = {
  search: tool({ description: "Searches the research notes.", inputSchema: z.object({ query: z.string().describe("What to look for") }), execute: async ({ query }) => toolOutput(query, currentTurn, 0) }),
  fetch_page: tool({ description: "Fetches a page of the notes.", inputSchema: z.object({ url: z.string() }), execute: async ({ url }) => toolOutput(url, currentTurn, 1) }),
};

/** The scripted model: per turn one round of tool calls (every 4th turn two; every 3rd turn two calls in parallel), then an answer. */
export function scriptedReply(api: Api, body: Record<string, unknown>, index: number): Reply {
  const items = (api === "chat" ? body.messages : body.input) as Record<string, unknown>[];
  const lastUser = items.findLastIndex((m) => m.role === "user");
  const userText = JSON.stringify(items[lastUser]?.content ?? "");
  const turn = Number(/question (\d+)/.exec(userText)?.[1] ?? -1);
  const after = items.slice(lastUser + 1);
  // Rounds so far in this turn: assistant messages with calls (Chat), runs of function_call items (Responses).
  const rounds = api === "chat" ? after.filter((m) => m.role === "assistant" && m.tool_calls).length : after.filter((m, i) => m.type === "function_call" && after[i - 1]?.type !== "function_call").length;
  if (rounds >= (turn % 4 === 3 ? 2 : 1)) return { text: `Answer ${turn}: the figures agree within ${turn % 11} units.` };
  const parallel = turn % 3 === 0 ? 2 : 1;
  return {
    text: rounds === 0 ? "Let me look that up." : "Checking one more source.",
    toolCalls: Array.from({ length: parallel }, (_, k) => ({ id: `call_${index}_${k}`, name: k === 0 ? "search" : "fetch_page", arguments: k === 0 ? { query: `topic ${turn}` } : { url: `https://example.org/${turn}` } })),
  };
}

export interface AgentRun {
  /** The caller's history after the last turn (the SDK's own, never trimmed). */
  history: ModelMessage[];
  steps: number;
}

/** Runs `turns` turns of the agent on `model`; `prepareStep` is the integration under test, if any. */
export async function runAgent(options: { model: LanguageModel; turns: number; prepareStep?: PrepareStepFunction<typeof tools>; providerOptions?: Record<string, Record<string, string | boolean>> }): Promise<AgentRun> {
  const history: ModelMessage[] = [];
  let steps = 0;
  for (currentTurn = 0; currentTurn < options.turns; currentTurn++) {
    history.push({ role: "user", content: `question ${currentTurn}: what do the notes say about topic ${currentTurn}?` });
    const result = await generateText({
      model: options.model,
      system: SYSTEM,
      tools,
      messages: history,
      stopWhen: stepCountIs(5),
      ...(options.prepareStep ? { prepareStep: options.prepareStep } : {}),
      ...(options.providerOptions ? { providerOptions: options.providerOptions } : {}),
    });
    steps += result.steps.length;
    history.push(...result.response.messages);
  }
  return { history, steps };
}
