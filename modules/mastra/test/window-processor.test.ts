/**
 * WindowProcessor on Mastra's own message objects (MastraMessageV2, as Mastra 0.24's MessageList
 * makes them), without an agent: the split into the model messages Mastra sends, and the way back —
 * kept messages are the same objects, shortened or partly kept ones are copies with the same id,
 * a tool invocation never comes back without its call or its result.
 */
import type { MastraMessageV2 } from "@mastra/core/agent";
import { describe, expect, it } from "vitest";
import { WindowProcessor } from "../index.js";
import { piecesOf } from "../mastra-messages.js";

const at = new Date("2026-11-28T00:00:00Z");
const user = (id: string, text: string): MastraMessageV2 => ({ id, role: "user", createdAt: at, content: { format: 2, parts: [{ type: "text", text }], content: text } });
const invocation = (id: string, args: unknown, result: unknown) => ({ type: "tool-invocation" as const, toolInvocation: { state: "result" as const, toolCallId: id, toolName: "lookup", args, result } });
/** One assistant message holding a whole turn: the tool call with its result, then the answer (Mastra merges them so). */
const turn = (id: string, call: string, result: unknown, answer: string): MastraMessageV2 => ({
  id,
  role: "assistant",
  createdAt: at,
  content: { format: 2, parts: [invocation(call, { query: call }, result), { type: "step-start" }, { type: "text", text: answer }], toolInvocations: [invocation(call, { query: call }, result).toolInvocation], content: answer },
});
const filler = (n: number) => Array.from({ length: n }, (_, i) => `record ${i} of the parcel history, depot ${i % 7}.`).join(" ");
const abort = (reason?: string): never => {
  throw new Error(reason);
};

describe("Mastra messages → the model messages Mastra sends", () => {
  it("splits a multi-step assistant message into the calls, their results and the text after them", () => {
    const pieces = piecesOf(turn("a1", "call_1", { fact: "x" }, "done"), 0);
    expect(pieces.map((p) => p.message)).toEqual([
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "call_1", toolName: "lookup", input: { query: "call_1" } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "call_1", toolName: "lookup", output: { type: "json", value: { fact: "x" } } }] },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
    ]);
    expect(pieces.map((p) => p.parts)).toEqual([[0], [0], [2]]);
  });
});

describe("WindowProcessor.processInput", () => {
  const conversation = (turns: number, resultSize: number): MastraMessageV2[] =>
    Array.from({ length: turns }, (_, i) => [user(`u${i}`, `Where is parcel ${i}?`), turn(`a${i}`, `call_${i}`, { records: filler(resultSize) }, `Parcel ${i} is on its way.`)]).flat();

  it("returns the messages themselves when they fit, and the newest turns (same objects, pairs whole) when they do not", async () => {
    const small = conversation(3, 5);
    const processor = new WindowProcessor({ model: "gpt-4o", budget: 100_000 });
    const all = await processor.processInput({ messages: small, abort });
    expect(all.length).toBe(small.length);
    all.forEach((m, i) => expect(m).toBe(small[i]));

    const long = conversation(60, 40);
    const fitted = await new WindowProcessor({ model: "gpt-4o", budget: 4_000 }).processInput({ messages: long, abort });
    expect(fitted.length).toBeLessThan(long.length);
    expect(fitted.at(-1)).toBe(long.at(-1));
    for (const m of fitted) {
      if (!long.includes(m)) continue;
      for (const part of m.content.parts) if (part.type === "tool-invocation") expect(part.toolInvocation.state).toBe("result");
    }
  });

  it("gives a shortened tool result back as a copy with the same id, the original untouched", async () => {
    const huge = [user("u0", "Read the whole log."), turn("a0", "call_0", { records: filler(3_000) }, "It is long."), user("u1", "Summarize it.")];
    const before = JSON.stringify(huge);
    const fitted = await new WindowProcessor({ model: "gpt-4o", budget: 3_000 }).processInput({ messages: huge, abort });
    expect(JSON.stringify(huge)).toBe(before);
    const copy = fitted.find((m) => m.id === "a0");
    expect(copy).toBeDefined();
    expect(copy).not.toBe(huge[1]);
    const call = copy!.content.parts.find((p) => p.type === "tool-invocation");
    expect(call?.type === "tool-invocation" && call.toolInvocation.state === "result" ? JSON.stringify(call.toolInvocation.result).length : 0).toBeLessThan(JSON.stringify(huge[1]!.content.parts[0]).length);
    expect(fitted.at(-1)).toBe(huge[2]);
  });

  it("keeps the agent's instructions out of the window it returns, and counts them", async () => {
    const messages = conversation(40, 40);
    const without = await new WindowProcessor({ model: "gpt-4o", budget: 6_000 }).processInput({ messages, abort });
    const withInstructions = await new WindowProcessor({ model: "gpt-4o", budget: 6_000, instructions: filler(150) }).processInput({ messages, abort });
    expect(withInstructions.every((m) => m.role !== "system")).toBe(true);
    expect(withInstructions.length).toBeLessThan(without.length);
  });

  it("refuses options that are not options, naming what it expected", () => {
    expect(() => new WindowProcessor(null as never)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(() => new WindowProcessor({ model: "gpt-4o", instructions: 42 as never })).toThrow(/instructions must be the agent's instructions as a string/);
  });
});

describe("Mastra 0.24's dates", () => {
  it("dates a window that reaches into the future just before now, in window order (Mastra sorts by date)", async () => {
    const future = Date.now() + 60_000;
    const messages = conversation2(4).map((m, i) => ({ ...m, createdAt: new Date(future + i) }));
    const fitted = await new WindowProcessor({ model: "gpt-4o", budget: 100_000 }).processInput({ messages, abort });
    fitted.forEach((m, i) => expect(m).toBe(messages[i]));
    const times = fitted.map((m) => m.createdAt.getTime());
    expect(Math.max(...times)).toBeLessThan(Date.now());
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });
});

function conversation2(turns: number): MastraMessageV2[] {
  return Array.from({ length: turns }, (_, i) => [user(`u${i}`, `Where is parcel ${i}?`), turn(`a${i}`, `call_${i}`, { records: filler(5) }, `Parcel ${i} is on its way.`)]).flat();
}
