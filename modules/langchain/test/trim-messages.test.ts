import { fromOpenAIChat, type ChatMessage } from "@amplifier-ts/adapters";
import { isAmplifierError, type ToolDefinition } from "@amplifier-ts/contracts";
import { getTokenCounter } from "@amplifier-ts/tokens";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages as langchainTrimMessages, type BaseMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { ChatOpenAI, convertMessagesToCompletionsMessageParams } from "@langchain/openai";
import { tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { openAIChatProblems } from "../../../test/adapters/api-rules.js";
import { trimMessages } from "../index.js";

/**
 * The drop-in against LangChain's own `trimMessages` (@langchain/core 1.x), on the same histories
 * and the same `maxTokens`. Each window is turned into the Chat Completions request ChatOpenAI
 * would send (@langchain/openai's own converter), then checked with the API's rules
 * (test/adapters/api-rules.ts) and counted exactly (@amplifier-ts/tokens, gpt-4o). LangChain gets
 * the best counter a user could write: that same exact count, as its `tokenCounter` function.
 */
const counter = getTokenCounter("gpt-4o");
const chatModel = new ChatOpenAI({ model: "gpt-4o", apiKey: "not-used" });

/** The request ChatOpenAI sends for a window (its own converter), as JSON. */
function requestOf(window: readonly BaseMessage[], tools: readonly ToolDefinition[] = []): Record<string, unknown> {
  const messages = JSON.parse(JSON.stringify(convertMessagesToCompletionsMessageParams({ messages: [...window], model: "gpt-4o" }))) as ChatMessage[];
  return { model: "gpt-4o", messages, ...(tools.length ? { tools } : {}) };
}

/** Exact tokens of the request a window becomes (messages + reply priming + tools). */
function requestTokens(window: readonly BaseMessage[], tools: readonly ToolDefinition[] = []): number {
  const body = requestOf(window, tools);
  return counter.countRequest(fromOpenAIChat(body.messages as ChatMessage[]), tools);
}

/**
 * LangChain's tokenCounter: the exact count of the messages as ChatOpenAI sends them — each
 * message counted once, in its history (a tool message's name comes from its call), served by id
 * (LangChain calls its counter once per message it drops, on copies of the messages).
 */
const perMessage = new Map<string, number>();
function learnCounts(history: readonly BaseMessage[]): void {
  const stored = fromOpenAIChat(requestOf(history).messages as ChatMessage[]);
  history.forEach((m, i) => perMessage.set(m.id!, counter.countMessage(stored[i]!)));
}
const exactCounter = (messages: BaseMessage[]): number => (messages.length === 0 ? 0 : messages.reduce((sum, m) => sum + perMessage.get(m.id!)!, counter.replyPriming));

/** What is wrong with a window as a request: API rules broken, over budget, prompt lost. */
function windowProblems(window: readonly (BaseMessage | undefined)[], history: readonly BaseMessage[], maxTokens: number, tools: readonly ToolDefinition[] = []): string[] {
  if (window.some((m) => m === undefined)) return ["undefined entries"];
  const messages = window as BaseMessage[];
  if (!messages.some((m) => m.id === history.at(-1)!.id)) return ["the last message is not in the window"];
  const problems = openAIChatProblems(requestOf(messages, tools));
  const tokens = requestTokens(messages, tools);
  if (tokens > maxTokens) problems.push(`${tokens} tokens > maxTokens ${maxTokens}`);
  return problems;
}

/** A seeded agent history: turns of a question, tool calls (one, or two in parallel), results, an answer. */
function agentHistory(turns: number, seed = 1): BaseMessage[] {
  let s = seed;
  const rand = () => ((s = (s * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
  const history: BaseMessage[] = [new SystemMessage("You are a careful research agent. Use the tools.")];
  for (let t = 0; t < turns; t++) {
    history.push(new HumanMessage(`Question ${t}: what changed in module ${t}?`));
    const calls = rand() < 0.4 ? 2 : 1;
    const ids = Array.from({ length: calls }, (_, k) => `call_${t}_${k}`);
    history.push(new AIMessage({ content: "", tool_calls: ids.map((id, k) => ({ id, name: "search", args: { query: `module ${t} part ${k}` }, type: "tool_call" as const })) }));
    for (const id of ids) history.push(new ToolMessage({ content: `result of ${id}: `.padEnd(80 + Math.floor(rand() * 900), "lorem ipsum "), tool_call_id: id, name: "search" }));
    history.push(new AIMessage(`Module ${t} changed its ${t % 5} interfaces.`));
  }
  history.forEach((m, i) => (m.id = `${seed}-${i}`));
  learnCounts(history);
  return history;
}

/** Every point where an agent calls the model (the next message is the assistant's): the history up to there. */
function modelCallPoints(history: readonly BaseMessage[]): BaseMessage[][] {
  return history.flatMap((m, i) => (i > 1 && m.getType() === "ai" ? [history.slice(0, i)] : []));
}

describe("trimMessages drop-in vs LangChain's trimMessages, same histories, same maxTokens", () => {
  const history = agentHistory(60);
  const points = modelCallPoints(history);

  for (const maxTokens of [1_500, 4_000]) {
    it(`at maxTokens ${maxTokens}: ours is valid and under budget at every model call; LangChain's without startOn orphans results`, async () => {
      const tally = { ours: 0, langchainStartOnHuman: 0, langchainPlain: 0 };
      const first: Record<string, string> = {};
      for (const messages of points) {
        const ours = await trimMessages(messages, { maxTokens, tokenCounter: chatModel, strategy: "last", includeSystem: true, startOn: "human" });
        const recommended = await langchainTrimMessages(messages, { maxTokens, tokenCounter: exactCounter, strategy: "last", includeSystem: true, startOn: "human" });
        const plain = await langchainTrimMessages(messages, { maxTokens, tokenCounter: exactCounter, strategy: "last", includeSystem: true });
        for (const [name, window] of [["ours", ours], ["langchainStartOnHuman", recommended], ["langchainPlain", plain]] as const) {
          const problems = windowProblems(window, messages, maxTokens);
          if (problems.length) {
            tally[name]++;
            first[name] ??= `${messages.length} messages: ${problems[0]}`;
          }
        }
        // What ours keeps, it keeps as the very objects it was given.
        expect(ours.every((m) => messages.includes(m))).toBe(true);
      }
      console.log(`maxTokens ${maxTokens}, ${points.length} model calls — broken windows: ours ${tally.ours}, LangChain (startOn human) ${tally.langchainStartOnHuman}, LangChain (no startOn) ${tally.langchainPlain}; first: ${JSON.stringify(first)}`);
      expect(tally.ours, first.ours).toBe(0);
      expect(tally.langchainPlain).toBeGreaterThan(0);
    });
  }

  it("a history with an interrupted tool call (no result recorded): LangChain sends the dangling call, ours repairs it", async () => {
    const messages = agentHistory(8, 7);
    // The process died while the tool ran: the call is stored, its result never was; the user asked again.
    messages.push(
      new HumanMessage({ content: "Question 8: and module 8?", id: "lost-1" }),
      new AIMessage({ content: "", id: "lost-2", tool_calls: [{ id: "call_lost", name: "search", args: { query: "module 8" }, type: "tool_call" }] }),
      new HumanMessage({ content: "Are you still there?", id: "lost-3" }),
    );
    learnCounts(messages);
    const maxTokens = 3_000;
    const theirs = await langchainTrimMessages(messages, { maxTokens, tokenCounter: exactCounter, strategy: "last", includeSystem: true, startOn: "human" });
    const ours = await trimMessages(messages, { maxTokens, tokenCounter: chatModel, strategy: "last", includeSystem: true, startOn: "human" });
    expect(windowProblems(theirs, messages, maxTokens).join("; ")).toMatch(/must be followed by tool messages/);
    expect(windowProblems(ours, messages, maxTokens)).toEqual([]);
  });

  it("a tool result larger than maxTokens: LangChain's window loses the turn in progress, ours keeps it with the result cut", async () => {
    const messages = agentHistory(6, 3);
    messages.push(
      new HumanMessage({ content: "Question 6: summarise the log.", id: "big-1" }),
      new AIMessage({ content: "", id: "big-2", tool_calls: [{ id: "call_big", name: "search", args: { query: "log" }, type: "tool_call" }] }),
      new ToolMessage({ content: "log line with a measured value 12.5 ms\n".repeat(800), tool_call_id: "call_big", name: "search", id: "big-3" }),
    );
    learnCounts(messages);
    const maxTokens = 2_000;
    const theirs = await langchainTrimMessages(messages, { maxTokens, tokenCounter: exactCounter, strategy: "last", includeSystem: true, startOn: "human" });
    const ours = await trimMessages(messages, { maxTokens, tokenCounter: chatModel, strategy: "last", includeSystem: true, startOn: "human" });
    // LangChain 1.4 returns [undefined] here (with includeSystem, when nothing after the system message fits).
    expect(theirs.some((m) => m?.id === "big-1")).toBe(false);
    expect(windowProblems(theirs, messages, maxTokens)).not.toEqual([]);
    expect(windowProblems(ours, messages, maxTokens)).toEqual([]);
    expect(ours.slice(-3).map((m) => m.getType())).toEqual(["human", "ai", "tool"]);
    const result = ours.at(-1)!;
    expect(result).not.toBe(messages.at(-1));
    expect(ToolMessage.isInstance(result) && result.tool_call_id).toBe("call_big");
    expect(String(result.content).length).toBeLessThan(String(messages.at(-1)!.content).length);
  });

  it("tools bound to the model count: LangChain's window fills maxTokens and the request overflows once the tools are sent; ours counts them", async () => {
    const search = tool(async () => "", { name: "search", description: "Searches the research notes for a query and returns the matching passages, newest first.", schema: z.object({ query: z.string().describe("What to look for"), limit: z.number().int().describe("How many passages") }) });
    const definitions = (await chatModel.bindTools([search])) as unknown as { defaultOptions?: { tools?: ToolDefinition[] }; kwargs?: { tools?: ToolDefinition[] } };
    const tools = definitions.kwargs?.tools ?? definitions.defaultOptions?.tools ?? [];
    expect(tools.length).toBe(1);
    const maxTokens = 2_000;
    let oursOver = 0;
    let theirsOver = 0;
    for (const messages of points) {
      const ours = await trimMessages(messages, { maxTokens, tokenCounter: chatModel, tools: [search], startOn: "human", includeSystem: true });
      const theirs = await langchainTrimMessages(messages, { maxTokens, tokenCounter: exactCounter, strategy: "last", includeSystem: true, startOn: "human" });
      if (requestTokens(ours, tools) > maxTokens) oursOver++;
      if (requestTokens(theirs, tools) > maxTokens) theirsOver++;
    }
    expect(oursOver).toBe(0);
    expect(theirsOver).toBeGreaterThan(0);
  });

  it("when everything fits, both return the history as given (the same objects)", async () => {
    const messages = agentHistory(3);
    const ours = await trimMessages(messages, { maxTokens: 100_000, tokenCounter: chatModel });
    const theirs = await langchainTrimMessages(messages, { maxTokens: 100_000, tokenCounter: exactCounter, includeSystem: true });
    expect(ours).toEqual(messages);
    expect(ours.every((m, i) => m === messages[i])).toBe(true);
    expect(theirs.map((m) => m.content)).toEqual(messages.map((m) => m.content));
  });
});

describe("trimMessages drop-in: LangChain's call shapes and options", () => {
  const messages = agentHistory(20);

  it("without messages it is a Runnable: invoke() and a chain give the same window as the direct call", async () => {
    const options = { maxTokens: 2_000, tokenCounter: chatModel, startOn: "human" as const, includeSystem: true };
    const direct = await trimMessages(messages, options);
    const trimmer = trimMessages(options);
    expect(await trimmer.invoke(messages)).toEqual(direct);
    const chain = trimmer.pipe(RunnableLambda.from((window: BaseMessage[]) => window.length));
    expect(await chain.invoke(messages)).toBe(direct.length);
    // Kept across calls: a grown history is fitted again (the new messages are in).
    const grown = [...messages, new HumanMessage({ content: "One more question?", id: "grown-1" })];
    learnCounts(grown);
    expect((await trimmer.invoke(grown)).at(-1)).toBe(grown.at(-1));
  });

  it("endOn is honoured: trailing messages of other types are left out, as LangChain does", async () => {
    const ours = await trimMessages(messages, { maxTokens: 100_000, tokenCounter: chatModel, endOn: "human" });
    const theirs = await langchainTrimMessages(messages, { maxTokens: 100_000, tokenCounter: exactCounter, endOn: "human", includeSystem: true });
    expect(ours.at(-1)?.getType()).toBe("human");
    expect(ours.length).toBe(theirs.length);
  });

  it("the model may be named instead of given as tokenCounter", async () => {
    expect(await trimMessages(messages, { maxTokens: 2_000, model: "gpt-4o" })).toEqual(await trimMessages(messages, { maxTokens: 2_000, tokenCounter: chatModel }));
  });

  const refused: [string, Parameters<typeof trimMessages>[1], string][] = [
    ["strategy: \"first\"", { maxTokens: 2_000, tokenCounter: chatModel, strategy: "first" }, "strategy"],
    ["a counting function", { maxTokens: 2_000, tokenCounter: (m: BaseMessage[]) => m.length }, "tokenCounter"],
    ["a textSplitter with allowPartial", { maxTokens: 2_000, tokenCounter: chatModel, allowPartial: true, textSplitter: (t: string) => t.split("\n") }, "textSplitter"],
    ["startOn other than human", { maxTokens: 2_000, tokenCounter: chatModel, startOn: "ai" }, "startOn"],
    ["both model and tokenCounter", { maxTokens: 2_000, tokenCounter: chatModel, model: "gpt-4o" }, "tokenCounter"],
  ];
  for (const [what, options, path] of refused) {
    it(`refuses ${what} with LANGCHAIN/UNSUPPORTED_OPTION naming the option`, async () => {
      const error = await trimMessages(messages, options).then(() => undefined, (e: unknown) => e);
      expect(isAmplifierError(error, "LANGCHAIN/UNSUPPORTED_OPTION")).toBe(true);
      expect((error as { details: { path: string } }).details.path).toBe(path);
      expect(() => trimMessages(options)).toThrow(/trimMessages option/);
    });
  }

  it("no model to count for is LANGCHAIN/NO_MODEL; an unknown model too", async () => {
    const none = await trimMessages(messages, { maxTokens: 2_000 }).then(() => undefined, (e: unknown) => e);
    expect(isAmplifierError(none, "LANGCHAIN/NO_MODEL")).toBe(true);
    const unknown = await trimMessages(messages, { maxTokens: 2_000, model: "no-such-model-9" }).then(() => undefined, (e: unknown) => e);
    expect(isAmplifierError(unknown, "LANGCHAIN/NO_MODEL")).toBe(true);
  });
});
