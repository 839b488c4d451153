import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../contracts/index.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { HistoryContextManager } from "../../modules/context-manager/index.js";

/**
 * The built-ins hold tools of their own (setTools, init.tools); getMessagesForRequest's
 * `options.tools` wins over them for that one request (contracts/CONTEXT.md, "Tools").
 */
const tool = (name: string, words: number): ToolDefinition => ({
  type: "function",
  function: { name, description: "reads a file and returns its text ".repeat(words), parameters: { type: "object", properties: { path: { type: "string" } } } },
});

async function manager(): Promise<HistoryContextManager> {
  const context = new HistoryContextManager({ moduleName: "test-tools" });
  for (let i = 0; i < 40; i++) {
    await context.addMessage({ role: "user", content: `question ${i} ${"lorem ipsum ".repeat(30)}` });
    await context.addMessage({ role: "assistant", content: `answer ${i} ${"dolor sit ".repeat(30)}` });
  }
  return context;
}

describe("getMessagesForRequest(budget, provider, { tools }) on the built-in manager", () => {
  const counter = getTokenCounter("gpt-4o");
  const budget = 3_000;

  it("counts the request's tools instead of setTools()' for that request, and setTools()' again after", async () => {
    const held = [tool("held", 200)];
    const given = [tool("given", 5)];
    // Fresh managers: the assembler keeps its cut while it fits, so one manager's later windows
    // remember its earlier ones.
    const heldOnly = await manager();
    heldOnly.setTools(held);
    const withHeld = await heldOnly.getMessagesForRequest(budget);
    const overridden = await manager();
    overridden.setTools(held);
    const withGiven = await overridden.getMessagesForRequest(budget, undefined, { tools: given });
    expect(counter.countRequest(withHeld, held)).toBeLessThanOrEqual(budget);
    expect(counter.countRequest(withGiven, given)).toBeLessThanOrEqual(budget);
    // The small request tools leave room for more messages than the large held ones would.
    expect(counter.countRequest(withGiven, held)).toBeGreaterThan(budget);
    expect(withGiven.length).toBeGreaterThan(withHeld.length);
    // The option did not replace what the manager holds: the next request counts the held tools.
    expect(counter.countRequest(await overridden.getMessagesForRequest(budget), held)).toBeLessThanOrEqual(budget);
  });

  it("tools: [] sends no tools even when the manager holds some", async () => {
    const bare = await (await manager()).getMessagesForRequest(budget);
    const holding = await manager();
    holding.setTools([tool("held", 200)]);
    const contents = (window: { content: unknown }[]) => window.map((m) => m.content);
    expect(contents(await holding.getMessagesForRequest(budget, undefined, { tools: [] }))).toEqual(contents(bare));
  });

  it("a pipeline's strategies see the request's tools in their budget too", async () => {
    const context = new HistoryContextManager({ moduleName: "test-tools", options: { strategies: [{ use: "tool-result-compaction" }] } });
    for (let i = 0; i < 40; i++) {
      await context.addMessage({ role: "user", content: `question ${i} ${"lorem ipsum ".repeat(30)}` });
      await context.addMessage({ role: "assistant", content: `answer ${i} ${"dolor sit ".repeat(30)}` });
    }
    const tools = [tool("given", 200)];
    const window = await context.getMessagesForRequest(budget, undefined, { tools });
    expect(counter.countRequest(window, tools)).toBeLessThanOrEqual(budget);
  });

  it("names options.tools when it is not an array", async () => {
    const context = await manager();
    await expect(context.getMessagesForRequest(budget, undefined, { tools: 5 as unknown as ToolDefinition[] })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      details: { path: "options.tools", module: "test-tools" },
    });
  });
});
