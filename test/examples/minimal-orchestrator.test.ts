import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { calculator, DEFAULT_PROMPT, formatTranscript, runMinimalOrchestrator, STYLE_REMINDER } from "../../examples/minimal-orchestrator.js";
import { ScriptedProvider } from "../../examples/scripted-provider.js";

const hasReminder = (messages: readonly Message[]) => messages.some((m) => m.content === STYLE_REMINDER);

// The loop is the same whichever context module the config names: the built-in default and a
// third-party package loaded by name.
describe.each(["context-simple", "amplifier-module-context-example"])("minimal orchestrator on %s", (contextModule) => {
  it("runs end to end: injected context, a tool call, its result, a final answer", async () => {
    const result = await runMinimalOrchestrator({ contextModule });

    expect(result.transcript).toEqual([
      { kind: "context", text: STYLE_REMINDER },
      { kind: "user", text: DEFAULT_PROMPT },
      { kind: "assistant", text: "Let me multiply that." },
      { kind: "tool_call", text: 'calculator({"operation":"multiply","a":37,"b":43})' },
      { kind: "tool_result", text: "1591" },
      { kind: "assistant", text: "That is 37 × 43 = 1591 tiles." },
    ]);
    expect(result.turns).toBe(2);
    expect(result.answer).toBe("That is 37 × 43 = 1591 tiles.");
    expect(formatTranscript(result)).toContain("(2 model calls)");

    // Stored: the conversation with the tool pair. Not stored: the ephemeral injection.
    expect(result.history.map((m) => [m.role, m.tool_calls?.[0]?.id ?? m.tool_call_id ?? m.content])).toEqual([
      ["user", DEFAULT_PROMPT],
      ["assistant", "call_1"],
      ["tool", "call_1"],
      ["assistant", "That is 37 × 43 = 1591 tiles."],
    ]);
    expect(hasReminder(result.history)).toBe(false);

    // Sent: the injection rides along with every model call of the prompt, the tools with their schema.
    expect(result.requests).toHaveLength(2);
    for (const request of result.requests) {
      expect(hasReminder(request.messages)).toBe(true);
      expect(request.tools?.map((t) => t.function.name)).toEqual(["calculator"]);
    }
    expect(result.requests[1]?.messages.find((m) => m.role === "tool")).toMatchObject({ tool_call_id: "call_1", content: "1591" });
  });

  it("emits tool:pre and tool:post around the call, and a tool:pre deny becomes an error result", async () => {
    const seen: string[] = [];
    const result = await runMinimalOrchestrator({
      contextModule,
      setup: ({ hooks }) => {
        hooks.on("tool:pre", (d) => void seen.push(`pre ${d.tool} ${d.callId}`));
        hooks.on("tool:post", (d) => void seen.push(`post ${d.tool} ${d.result.output}`));
        hooks.register("tool:pre", () => ({ action: "deny", reason: "no arithmetic today" }), { name: "policy" });
      },
    });
    expect(seen).toEqual(["pre calculator call_1"]);
    expect(result.transcript).toContainEqual({ kind: "tool_result", text: "error: calculator was denied: no arithmetic today" });
  });
});

describe("minimal orchestrator: its parts", () => {
  it("tool:post is emitted with the result when the tool runs", async () => {
    const posts: unknown[] = [];
    await runMinimalOrchestrator({ contextModule: "amplifier-module-context-example", setup: ({ hooks }) => void hooks.on("tool:post", (d) => void posts.push(d.result)) });
    expect(posts).toEqual([{ output: "1591" }]);
  });

  it("stops a model that never stops calling tools", async () => {
    const loop: Message = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "again", type: "function", function: { name: "calculator", arguments: '{"operation":"add","a":1,"b":1}' } }],
    };
    await expect(runMinimalOrchestrator({ contextModule: "amplifier-module-context-example", script: [loop, loop, loop], maxModelCalls: 3 })).rejects.toThrow(
      /still calling tools after 3 calls/,
    );
  });

  it("the calculator rejects bad input; the scripted provider refuses to run past its script", async () => {
    expect(calculator.execute({ operation: "divide", a: 6, b: 3 })).toEqual({ output: "2" });
    expect(() => calculator.execute({ operation: "divide", a: 1, b: 0 })).toThrow(/division by zero/);
    expect(() => calculator.execute({ operation: "pow", a: 1, b: 2 })).toThrow(/unknown operation/);
    const provider = new ScriptedProvider([{ role: "assistant", content: "only one" }], { model: "gpt-4o-mini", contextWindow: 1_000 });
    expect(provider.getInfo()).toMatchObject({ id: "scripted", defaults: { model: "gpt-4o-mini", context_window: 1_000, max_output_tokens: 4_096 } });
    await expect(provider.complete({ messages: [] })).resolves.toMatchObject({ message: { content: "only one" } });
    await expect(provider.complete({ messages: [] })).rejects.toThrow(/no reply left/);
  });
});
