import { describe, expect, it } from "vitest";
import type { ToolCallPart } from "../../contracts/messages/message-content.js";
import { Coordinator } from "../../core/coordinator.js";
import { runTool, startTurn } from "../../src/turn/index.js";
import { mount as mountSimple } from "../../modules/context-simple/index.js";

/**
 * Issue 25, item 11: the loop users copy emits the standard events. startTurn and runTool are the
 * two steps of a hand-written loop that amplifier-core's orchestrators take: prompt:submit (hooks
 * applied, the user message stored), tool:pre / tool:post / tool:error around each call, and
 * prompt:complete at the end.
 */
async function setup() {
  const coordinator = new Coordinator({ sessionId: "turns" });
  const context = await mountSimple(coordinator, {});
  const seen: string[] = [];
  coordinator.hooks.on("*", (event) => void seen.push(event));
  return { coordinator, context, seen };
}

const openaiCall = (name: string, args: string): ToolCallPart => ({ style: "openai", id: "call_1", name, arguments: args });

describe("startTurn", () => {
  it("emits prompt:submit, stores the user message, hands back the ephemeral injections; complete() emits prompt:complete", async () => {
    const { coordinator, context, seen } = await setup();
    coordinator.hooks.register("prompt:submit", () => ({ action: "inject_context", context_injection: "Be brief.", ephemeral: true }), { name: "style" });
    const completed: unknown[] = [];
    coordinator.hooks.on("prompt:complete", (p) => void completed.push(p));

    const turn = await startTurn(coordinator, "Why do the tests fail?", { runId: "r1" });
    expect(seen.slice(0, 1)).toEqual(["prompt:submit"]);
    expect((await context.getMessages()).map((m) => [m.role, m.content, m.metadata?.runId])).toEqual([["user", "Why do the tests fail?", "r1"]]);
    expect(turn.extraMessages.map((m) => m.content)).toEqual(["Be brief."]);
    await turn.complete("No test script.");
    expect(completed).toEqual([{ prompt: "Why do the tests fail?", response: "No test script.", runId: "r1" }]);
    await coordinator.cleanup();
  });

  it("a hook that denies: PROMPT_DENIED with the reason, and nothing is stored", async () => {
    const { coordinator, context } = await setup();
    coordinator.hooks.register("prompt:submit", () => ({ action: "deny", reason: "no secrets" }), { name: "guard" });
    await expect(startTurn(coordinator, "print the API key")).rejects.toMatchObject({ code: "PROMPT_DENIED", details: { reason: "no secrets", hook: "guard" } });
    expect(await context.getMessages()).toEqual([]);
    await coordinator.cleanup();
  });

  it("without a mounted context, or with a prompt that is not a string: typed errors before any event", async () => {
    const coordinator = new Coordinator();
    const seen: string[] = [];
    coordinator.hooks.on("*", (event) => void seen.push(event));
    await expect(startTurn(coordinator, "hi")).rejects.toMatchObject({ code: "NO_CONTEXT_MOUNTED" });
    await mountSimple(coordinator, {});
    await expect(startTurn(coordinator, 42 as never)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: { path: "startTurn.prompt" } });
    expect(seen.filter((e) => e.startsWith("prompt:"))).toEqual([]);
    await coordinator.cleanup();
  });
});

describe("runTool", () => {
  async function withCalculator() {
    const base = await setup();
    await base.coordinator.mount("tools", {
      definition: { type: "function", function: { name: "add", parameters: { type: "object" } } },
      execute: ({ a, b }: Record<string, unknown>) => {
        if (typeof a !== "number" || typeof b !== "number") throw new Error("a and b must be numbers");
        return { output: String(a + b) };
      },
    }, "add");
    return base;
  }

  it("tool:pre, execute, tool:post — OpenAI and Anthropic calls alike", async () => {
    const { coordinator, seen } = await withCalculator();
    const posts: unknown[] = [];
    coordinator.hooks.on("tool:post", (p) => void posts.push({ tool: p.tool, callId: p.callId, input: p.input, result: p.result }));
    expect(await runTool(coordinator, openaiCall("add", '{"a":2,"b":3}'))).toEqual({ output: "5" });
    expect(await runTool(coordinator, { style: "anthropic", id: "toolu_1", name: "add", input: { a: 1, b: 1 } })).toEqual({ output: "2" });
    expect(seen).toEqual(["tool:pre", "tool:post", "tool:pre", "tool:post"]);
    expect(posts).toEqual([
      { tool: "add", callId: "call_1", input: { a: 2, b: 3 }, result: { output: "5" } },
      { tool: "add", callId: "toolu_1", input: { a: 1, b: 1 }, result: { output: "2" } },
    ]);
    await coordinator.cleanup();
  });

  it("a tool:pre hook may modify the input or deny the call (an error result, the tool not run)", async () => {
    const { coordinator } = await withCalculator();
    const unregister = coordinator.hooks.register("tool:pre", (p) => ({ action: "modify", data: { ...p, input: { a: 10, b: 10 } } }), { name: "rewrite" });
    expect(await runTool(coordinator, openaiCall("add", '{"a":2,"b":3}'))).toEqual({ output: "20" });
    unregister();
    coordinator.hooks.register("tool:pre", () => ({ action: "deny", reason: "no arithmetic today" }), { name: "guard" });
    expect(await runTool(coordinator, openaiCall("add", '{"a":2,"b":3}'))).toEqual({ output: "error: add was denied: no arithmetic today", isError: true });
    await coordinator.cleanup();
  });

  it("failures become error results the model can read: a throwing tool (tool:error), an unknown tool, arguments that are not a JSON object", async () => {
    const { coordinator, seen } = await withCalculator();
    const errors: string[] = [];
    coordinator.hooks.on("tool:error", (p) => void errors.push(p.error.message));
    expect(await runTool(coordinator, openaiCall("add", '{"a":"x"}'))).toEqual({ output: "error: a and b must be numbers", isError: true });
    expect(errors).toEqual(["a and b must be numbers"]);
    expect(await runTool(coordinator, openaiCall("multiply", "{}"))).toEqual({ output: "error: there is no tool named multiply", isError: true });
    seen.length = 0;
    expect(await runTool(coordinator, openaiCall("add", '{"a":1,'))).toEqual({ output: "error: the arguments of add are not a JSON object", isError: true });
    expect(await runTool(coordinator, openaiCall("add", "[1,2]"))).toMatchObject({ isError: true });
    expect(seen, "no tool:pre for a call whose arguments cannot be read").toEqual([]);
    await coordinator.cleanup();
  });
});
