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
import { API_KEY } from "../../../test/providers/fake-api-server.js";

export { scriptedReply } from "./scripted-model.js";

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
