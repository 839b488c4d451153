import OpenAI from "openai";
import { z } from "zod";
import { Agent, OpenAIProvider, Runner, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool, type Session } from "@openai/agents";
import { API_KEY, startFakeApiServer, type FakeApiServer, type Reply } from "../../../test/providers/fake-api-server.js";

/**
 * The agent loop the integration tests run: a real Agent with a real function tool, run by the
 * SDK's `run()` (its default OpenAI Responses model, over an OpenAI client pointed at the fake
 * server on 127.0.0.1) — the code a user writes, as the README shows it.
 *
 * Each user turn "turn k: …" makes the scripted model think (a reasoning item) and call `lookup`
 * — twice in parallel on every third turn — then answer in text once the results are in. The
 * tool returns 100–200 tokens, so the history outgrows the window within tens of turns.
 */
export const INSTRUCTIONS = "You are a research assistant. Look things up with the lookup tool before answering, then answer in two sentences.";

export const lookup = tool({
  name: "lookup",
  description: "Looks a topic up in the knowledge base and returns the passage found.",
  parameters: z.object({ topic: z.string() }),
  execute: async ({ topic }) => passage(topic),
});

export const agent = new Agent({ name: "researcher", instructions: INSTRUCTIONS, tools: [lookup], model: "gpt-4o" });

/** One fake server for a test file: the SDK's default client is process-wide, and its default provider keeps the first one. */
export async function startFakeModel(): Promise<FakeApiServer> {
  setTracingDisabled(true);
  const server = await startFakeApiServer((api, body) => (api === "responses" ? scriptedReply(body) : api === "chat" ? scriptedChatReply(body) : { error: { status: 404, message: "no Anthropic here" } }));
  const client = new OpenAI({ apiKey: API_KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
  setDefaultOpenAIClient(client);
  setOpenAIAPI("responses");
  chatRunner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: false }), tracingDisabled: true });
  return server;
}

let chatRunner: Runner | undefined;

/** User turn `k` on the Chat Completions API (a Runner whose provider does not use Responses). */
export async function chatUserTurn(k: number, session: Session): Promise<string | undefined> {
  const result = await chatRunner!.run(agent, `turn ${k}: what do we know about ${topicOf(k)}?`, { session });
  return result.finalOutput;
}

function scriptedChatReply(body: Record<string, unknown>): Reply {
  const messages = body.messages as Record<string, unknown>[];
  const k = turnOf(messages);
  if (messages.at(-1)?.role === "tool") return { text: `About ${topicOf(k)}: the passages agree on the main points (turn ${k}). Ask for more detail if needed.` };
  const calls = k % 3 === 0 ? 2 : 1;
  return { toolCalls: Array.from({ length: calls }, (_, c) => ({ id: `call_${k}_${c}`, name: "lookup", arguments: { topic: `${topicOf(k)} ${c === 0 ? "overview" : "history"}` } })) };
}

/** User turn `k` with `session`, as a user's code runs it. */
export async function userTurn(k: number, session: Session): Promise<string | undefined> {
  const result = await run(agent, `turn ${k}: what do we know about ${topicOf(k)}?`, { session });
  return result.finalOutput;
}

function scriptedReply(body: Record<string, unknown>): Reply {
  const input = body.input as Record<string, unknown>[];
  const last = input.at(-1);
  const k = turnOf(input);
  if (last?.type === "function_call_output") {
    return { text: `About ${topicOf(k)}: the passages agree on the main points (turn ${k}). Ask for more detail if needed.`, ids: { message: `msg_${k}` } };
  }
  const calls = k % 3 === 0 ? 2 : 1;
  return {
    thinking: `The user asks about ${topicOf(k)}; I should look it up${calls > 1 ? " from two angles" : ""}.`,
    toolCalls: Array.from({ length: calls }, (_, c) => ({ id: `call_${k}_${c}`, name: "lookup", arguments: { topic: `${topicOf(k)} ${c === 0 ? "overview" : "history"}` } })),
    ids: { reasoning: `rs_${k}` },
  };
}

/** The k of the newest "turn k:" user message in the input. */
function turnOf(input: readonly Record<string, unknown>[]): number {
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i]!;
    const content = item.content;
    const text = typeof content === "string" ? content : Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? "").join("") : "";
    const match = item.role === "user" ? /^turn (\d+):/.exec(text) : null;
    if (match) return Number(match[1]);
  }
  return -1;
}

const SUBJECTS = ["tides", "glaciers", "volcanoes", "coral reefs", "monsoons", "deserts", "rivers", "auroras", "earthquakes", "forests", "wetlands"];

export function topicOf(k: number): string {
  return `${SUBJECTS[k % SUBJECTS.length]} (${k})`;
}

/** About 150–300 tokens of text about a topic, different for each. */
function passage(topic: string): string {
  let seed = [...topic].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  const words = ["measured", "season", "records", "station", "observers", "pattern", "coastline", "average", "survey", "decade", "northern", "samples", "model", "estimate", "variation", "region"];
  const out: string[] = [`Passage on ${topic}.`];
  const n = 80 + (seed % 80);
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    out.push(words[(seed >>> 16) % words.length]!);
  }
  return out.join(" ") + ".";
}
