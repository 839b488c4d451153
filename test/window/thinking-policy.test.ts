/**
 * The window's thinking policy (window-builder.ts): by default (`drop-older`) assistant messages of
 * turns before the last one are sent without their thinking blocks — all of a message's or none —
 * and the saving is counted; the last turn's thinking, the turn in progress's included, is sent
 * byte-identical; `keep` sends every block. The stored history is never changed.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { fitWindow, WindowAssembler } from "../../modules/window/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { fakeCounter } from "./fake-counter.js";

const thinking = (n: number) => ({ type: "thinking" as const, thinking: `Reasoning about step ${n}. `.repeat(8), signature: `EqSig${n}+/=` });
const redacted = (n: number) => ({ type: "redacted_thinking" as const, data: `RedactedData${n}`.repeat(4) });

function history(): Message[] {
  return [
    { role: "system", content: "Be terse.", metadata: { id: "s" } },
    { role: "user", content: "task 1", metadata: { id: "u1" } },
    { role: "assistant", content: [thinking(1), redacted(1), { type: "tool_use", id: "t1", name: "grep", input: {} }], metadata: { id: "a1" } },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "found" }], metadata: { id: "r1" } },
    { role: "assistant", content: [thinking(2), { type: "text", text: "Done 1." }], metadata: { id: "f1" } },
    { role: "assistant", content: [thinking(3)], metadata: { id: "only-thinking" } },
    { role: "user", content: "task 2", metadata: { id: "u2" } },
    { role: "assistant", content: [thinking(4), redacted(4), { type: "tool_use", id: "t2", name: "grep", input: {} }], metadata: { id: "a2" } },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t2", content: "found again" }], metadata: { id: "r2" } },
  ];
}
const byId = (window: readonly Message[], id: string) => window.find((m) => m.metadata?.id === id)!;
const types = (m: Message) => (Array.isArray(m.content) ? m.content.map((b) => b.type) : ["string"]);

describe("thinking policy", () => {
  it("drop-older (default): older turns lose all their thinking blocks, the last turn keeps them byte-identical, the saving is counted", () => {
    const stored = history();
    const frozen = JSON.stringify(stored);
    const counter = fakeCounter();
    const { messages, report } = new WindowAssembler(stored).assemble({ budget: 100_000, counter });
    expect(types(byId(messages, "a1"))).toEqual(["tool_use"]);
    expect(types(byId(messages, "f1"))).toEqual(["text"]);
    // Nothing but thinking: sent as it is (never an empty message).
    expect(types(byId(messages, "only-thinking"))).toEqual(["thinking"]);
    expect(JSON.stringify(byId(messages, "a2").content)).toBe(JSON.stringify(stored[7]!.content));
    const stripped = (i: number) => ({ ...stored[i]!, content: (stored[i]!.content as { type: string }[]).filter((b) => b.type !== "thinking" && b.type !== "redacted_thinking") }) as Message;
    const saved = counter.countMessage(stored[2]!) - counter.countMessage(stripped(2)) + counter.countMessage(stored[4]!) - counter.countMessage(stripped(4));
    expect(saved).toBeGreaterThan(counter.countText(thinking(1).thinking));
    expect(report.thinkingDropped).toEqual({ messages: 2, tokens: saved });
    expect(report.windowTokens).toBe(messages.reduce((sum, m) => sum + counter.countMessage(m), 0) + counter.replyPriming);
    expect(JSON.stringify(stored)).toBe(frozen);
  });

  it("an older message without its thinking is made once: shared windows hand out the same object, copying windows a fresh copy of it", () => {
    const stored = history();
    const counter = fakeCounter();
    const assembler = new WindowAssembler(stored);
    const shared = () => byId(assembler.assemble({ budget: 100_000, counter, shared: true }).messages, "a1");
    const first = shared();
    expect(types(first)).toEqual(["tool_use"]);
    expect(shared()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const copied = byId(assembler.assemble({ budget: 100_000, counter }).messages, "a1");
    expect(copied).not.toBe(first);
    expect(copied).toEqual(first);
    // A copy is the caller's to change: the next window is not.
    copied.content = "changed";
    copied.metadata!.id = "changed";
    expect(byId(assembler.assemble({ budget: 100_000, counter }).messages, "a1").content).toEqual(first.content);
    expect(assembler.assemble({ budget: 100_000, counter }).report.thinkingDropped).toEqual(assembler.assemble({ budget: 100_000, counter, shared: true }).report.thinkingDropped);
  });

  it("keep: every thinking block is sent as stored", () => {
    const stored = history();
    const { messages, report } = new WindowAssembler(stored).assemble({ budget: 100_000, counter: fakeCounter(), thinking: "keep" });
    messages.forEach((m) => expect(JSON.stringify(m.content)).toBe(JSON.stringify(stored.find((s) => s.metadata?.id === m.metadata?.id)!.content)));
    expect(report.thinkingDropped).toEqual({ messages: 0, tokens: 0 });
  });

  it("a critical message keeps its thinking (critical messages are sent verbatim)", () => {
    const stored = history();
    stored[2] = { ...stored[2]!, metadata: { id: "a1", critical: true } };
    const { messages } = new WindowAssembler(stored).assemble({ budget: 100_000, counter: fakeCounter() });
    expect(types(byId(messages, "a1"))).toEqual(["thinking", "redacted_thinking", "tool_use"]);
  });

  it("a bad policy is INVALID_ARGUMENT naming the choices", () => {
    expect(() => new WindowAssembler(history()).assemble({ budget: 100_000, counter: fakeCounter(), thinking: "some" as never })).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });

  it("context modules: config `thinking`, default drop-older; explainLastWindow().report counts the saving", async () => {
    const dropping = new HistoryContextManager({ moduleName: "context-simple", options: {} });
    await dropping.setMessages(history());
    const window = await dropping.getMessagesForRequest(100_000);
    expect(types(byId(window, "a1"))).toEqual(["tool_use"]);
    expect(types(byId(window, "a2"))).toEqual(["thinking", "redacted_thinking", "tool_use"]);
    expect(types(byId(await dropping.getMessages(), "a1"))).toEqual(["thinking", "redacted_thinking", "tool_use"]);
    expect(dropping.explainLastWindow()?.report.thinkingDropped).toMatchObject({ messages: 2 });
    expect(dropping.explainLastWindow()!.report.thinkingDropped.tokens).toBeGreaterThan(0);
    const keeping = new HistoryContextManager({ moduleName: "context-simple", options: { thinking: "keep" } });
    await keeping.setMessages(history());
    expect(types(byId(await keeping.getMessagesForRequest(100_000), "a1"))).toEqual(["thinking", "redacted_thinking", "tool_use"]);
    expect(() => new HistoryContextManager({ moduleName: "context-simple", options: { thinking: "some" as never } })).toThrow(/thinking/);
  });

  it("fitWindow: option `thinking`, in the caller's own shape (Anthropic messages)", () => {
    const anthropic = [
      { role: "user", content: "task 1" },
      { role: "assistant", content: [thinking(1), { type: "tool_use", id: "t1", name: "grep", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "found" }] },
      { role: "assistant", content: [thinking(2), { type: "text", text: "Done." }] },
      { role: "user", content: "task 2" },
    ];
    const dropped = fitWindow(anthropic, { budget: 100_000, format: "anthropic" }) as typeof anthropic;
    expect(dropped[1]!.content).toEqual([{ type: "tool_use", id: "t1", name: "grep", input: {} }]);
    expect(dropped[3]!.content).toEqual([{ type: "text", text: "Done." }]);
    const kept = fitWindow(anthropic, { budget: 100_000, format: "anthropic", thinking: "keep" });
    expect(kept).toEqual(anthropic);
    expect(() => fitWindow(anthropic, { budget: 100_000, thinking: "none" as never })).toThrow(/thinking/);
  });
});
