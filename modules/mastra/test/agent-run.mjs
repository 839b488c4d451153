/**
 * A Mastra agent of many turns with a tool, against the fake model server at argv[2] — run as a
 * plain Node child of mastra-agent.test.ts (Mastra 0.24 bundles packages whose "source" export
 * condition and ESM builds the test runner's loader settings cannot load; plain Node loads them as
 * a user's app would). The test reads what the fake server received; this prints a JSON summary.
 *
 *   node agent-run.mjs <url> window <turns> <requestBudget> <room>
 *     The README's agent: `inputProcessors: [new WindowProcessor(...)]`, the conversation kept by
 *     the app and passed whole to every generate() call (Mastra 0.24's input processors see the
 *     messages a call is given).
 *   node agent-run.mjs <url> token-limiter <turns> <limit>
 *     Mastra's own answer: Memory (in-memory store, every message recalled) with its TokenLimiter
 *     memory processor — where TokenLimiter sits in Mastra 0.x — and only the new message passed.
 */
import { createOpenAI } from "@ai-sdk/openai-v5"; // @ai-sdk/openai 2.0.53 (AI SDK 5), the provider Mastra 0.24 pins
import { Agent } from "@mastra/core/agent";
import { InMemoryStore } from "@mastra/core/storage";
import { createTool } from "@mastra/core/tools";
import { Memory } from "@mastra/memory";
import { TokenLimiter } from "@mastra/memory/processors";
import { WindowProcessor } from "@amplifier-ts/mastra";
import { z } from "zod";

const [url, mode, turnsArg, budgetArg, roomArg] = process.argv.slice(2);
const turns = Number(turnsArg);
const budget = Number(budgetArg);

const openai = createOpenAI({ baseURL: `${url}/v1`, apiKey: "test-key" });
const instructions = "You are the support agent of a parcel company. Look facts up with the lookup tool before answering.";
// A deterministic fact of a few hundred tokens per query: tool results are what fills a window.
const fact = (query) => Array.from({ length: 24 }, (_, i) => `${query} record ${i}: parcel ${(i * 7919) % 1000} left depot ${i % 9} at ${10 + (i % 12)}:${String((i * 13) % 60).padStart(2, "0")}.`).join(" ");
const tools = {
  lookup: createTool({
    id: "lookup",
    description: "Looks up the tracking records for a query",
    inputSchema: z.object({ query: z.string() }),
    execute: async ({ context }) => ({ records: fact(context.query) }),
  }),
  saveNote: createTool({
    id: "saveNote",
    description: "Saves a note to the customer's file",
    inputSchema: z.object({ note: z.string() }),
    execute: async ({ context }) => ({ saved: context.note.length }),
  }),
};
const question = (turn) => `Turn ${turn}: where is parcel ${turn * 31}? It was sent from warehouse ${turn % 17} and the customer asks again.`;

const summary = { mode, turns: 0 };
if (mode === "window") {
  const room = Number(roomArg);
  // modules/mastra/README.md's agent, pointed at the fake server, with a budget that 300 turns outgrow.
  const agent = new Agent({
    name: "support",
    instructions,
    model: openai.chat("gpt-4o"),
    tools,
    inputProcessors: [new WindowProcessor({ model: "gpt-4o", budget: budget - room, instructions, tools })],
  });
  const history = [];
  for (let turn = 0; turn < turns; turn++) {
    history.push({ role: "user", content: question(turn) });
    const result = await agent.generate(history, { maxSteps: 4 });
    history.push(...result.response.messages);
    summary.turns += 1;
  }
  summary.historyMessages = history.length;
} else if (mode === "token-limiter") {
  // Every message of the thread recalled, so TokenLimiter is what bounds the window.
  // TokenLimiter as it is, its windows (what it returns) inspected for tool pairs on the way out.
  class InspectedTokenLimiter extends TokenLimiter {
    process(messages, options) {
      const window = super.process(messages, options);
      const ids = (role, type) => new Set(window.filter((m) => m.role === role && Array.isArray(m.content)).flatMap((m) => m.content.filter((p) => p.type === type).map((p) => p.toolCallId)));
      const [calls, results] = [ids("assistant", "tool-call"), ids("tool", "tool-result")];
      const orphans = [...calls].filter((id) => !results.has(id)).length + [...results].filter((id) => !calls.has(id)).length;
      summary.windows = (summary.windows ?? 0) + 1;
      summary.trimmedWindows = (summary.trimmedWindows ?? 0) + (window.length < messages.length ? 1 : 0);
      summary.windowsWithBrokenPairs = (summary.windowsWithBrokenPairs ?? 0) + (orphans > 0 ? 1 : 0);
      summary.orphans = (summary.orphans ?? 0) + orphans;
      return window;
    }
  }
  const memory = new Memory({ storage: new InMemoryStore(), processors: [new InspectedTokenLimiter(budget)], options: { lastMessages: 100_000, semanticRecall: false, threads: { generateTitle: false } } });
  const agent = new Agent({ name: "support", instructions, model: openai.chat("gpt-4o"), tools, memory });
  for (let turn = 0; turn < turns; turn++) {
    const result = await agent.generate(question(turn), { maxSteps: 4, memory: { thread: "thread-1", resource: "customer-1" } }).catch((error) => ({ error }));
    if (result.error) {
      summary.errors = (summary.errors ?? 0) + 1;
      summary.lastError = String(result.error?.message ?? result.error).slice(0, 300);
    }
    summary.turns += 1;
  }
} else {
  throw new Error(`agent-run.mjs: unknown mode ${mode} (expected window or token-limiter)`);
}
process.stdout.write(JSON.stringify(summary));
