/**
 * WindowAssembler: placement, copies, request-only messages, explain, counters and cost.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { checkWindowInvariants } from "../../testing/window-invariants.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { WindowAssembler } from "../../modules/window/index.js";
import { assistant, call, chars, conversation, ids, result, system, use, user } from "./builders.js";
import { fakeCounter } from "./fake-counter.js";

const counter = fakeCounter();
const budget = 100_000;

describe("placement", () => {
  it("puts every instruction (system, developer) first, in stored order, also ones stored mid-history", () => {
    const history: Message[] = [system("s1"), user("u1", "a"), { role: "developer", content: "be brief", metadata: { id: "d" } }, assistant("a1", "b"), system("s2", "note")];
    const { messages } = new WindowAssembler(history).assemble({ budget, counter });
    expect(ids(messages)).toEqual(["s1", "d", "s2", "u1", "a1"]);
  });

  it("starts with a user turn: messages before the first user message are not sent", () => {
    const history = [system("s"), assistant("hello", "Hello! How can I help?"), user("u", "hi"), assistant("a", "hey")];
    const { messages, report } = new WindowAssembler(history).assemble({ budget, counter, explain: true });
    expect(ids(messages)).toEqual(["s", "u", "a"]);
    expect(report.compacted).toBe(false);
    expect(report.decisions?.find((d) => d.id === "hello")).toMatchObject({ action: "dropped", reason: "before-first-turn" });
  });

  it("a history without a user message is sent as it is", () => {
    const history = [system("s"), assistant("a", "standing by")];
    expect(ids(new WindowAssembler(history).assemble({ budget, counter }).messages)).toEqual(["s", "a"]);
  });

  it("shows ephemeral messages like any other", () => {
    const history = [user("u", "q"), assistant("e", "thinking step", { ephemeral: true })];
    expect(ids(new WindowAssembler(history).assemble({ budget, counter }).messages)).toEqual(["u", "e"]);
  });

  it("appends request-only messages at the end, counted against the budget, never indexed", () => {
    const history = conversation(20);
    const extra = [system("inject", chars(2_000))];
    const assembler = new WindowAssembler(history);
    const { messages, report } = assembler.assemble({ budget: 2_000, counter, extraMessages: extra });
    expect(messages.at(-1)).toEqual(extra[0]);
    expect(messages.at(-1)).not.toBe(extra[0]);
    expect(report.windowTokens).toBe(counter.countRequest(messages));
    expect(report.windowTokens).toBeLessThanOrEqual(2_000);
    expect(checkWindowInvariants(history, messages, { budget: 2_000, counter, extraMessages: extra })).toEqual([]);
    expect(assembler.length).toBe(history.length);
    // the cut is kept (hysteresis); without the extra message the window is the same history part
    expect(ids(assembler.assemble({ budget: 2_000, counter }).messages)).toEqual(ids(messages.slice(0, -1)));
  });

  it("counts tool definitions against the budget", () => {
    const tools = [{ type: "function" as const, function: { name: "read_file", description: chars(2_000), parameters: { type: "object" } } }];
    const history = conversation(20);
    const { messages, report } = new WindowAssembler(history).assemble({ budget: 2_000, counter, tools });
    expect(report.windowTokens).toBe(counter.countRequest(messages, tools));
    expect(report.windowTokens).toBeLessThanOrEqual(2_000);
  });

  it("an empty history gives an empty window", () => {
    const { messages, report } = new WindowAssembler().assemble({ budget, counter });
    expect(messages).toEqual([]);
    expect(report).toMatchObject({ historyMessages: 0, windowMessages: 0, windowTokens: 3, cutIndex: 0, firstKeptId: undefined });
  });
});

describe("copies and ownership", () => {
  it("returns fresh copies; changing them changes neither the history nor later windows", () => {
    const history = [user("u", "q"), call("a", ["c1"]), result("r", "c1", "out")];
    const before = JSON.stringify(history);
    const assembler = new WindowAssembler(history);
    const first = assembler.assemble({ budget, counter }).messages;
    first.forEach((m, i) => expect(m).not.toBe(history[i]));
    first[0]!.content = "changed";
    first[0]!.metadata!.id = "changed";
    first.length = 0;
    expect(JSON.stringify(history)).toBe(before);
    expect(ids(assembler.assemble({ budget, counter }).messages)).toEqual(["u", "a", "r"]);
  });

  it("synthetic and truncated messages it creates are frozen below the top level, so one window cannot change the next", () => {
    const assembler = new WindowAssembler([user("u", "q"), use("a", ["t1"])]);
    const first = assembler.assemble({ budget, counter }).messages;
    first[2]!.metadata!.id = "renamed";
    expect(() => (first[2]!.content as unknown[]).push({ type: "text", text: "x" })).toThrow(TypeError);
    const second = assembler.assemble({ budget, counter }).messages;
    expect(second[2]).toMatchObject({ content: [{ type: "tool_result", tool_use_id: "t1", is_error: true }], metadata: { id: "a:interrupted:t1" } });
  });

  it("reset replaces the history and forgets the cut", () => {
    const assembler = new WindowAssembler(conversation(30));
    expect(assembler.assemble({ budget: 2_000, counter }).report.cutReason).toBe("recut");
    assembler.reset(conversation(2, 200, "n"));
    const { messages, report } = assembler.assemble({ budget: 2_000, counter });
    expect(report.cutReason).toBe("fits");
    expect(ids(messages)).toEqual(["n0u", "n0a", "n1u", "n1a"]);
  });
});

describe("explain", () => {
  it("accounts for every stored message, with a reason, only when asked", () => {
    const history = [system("s"), user("u0", "old"), result("orphan", "ghost", "x"), ...conversation(30), user("u", "go"), call("a", ["c1"])];
    const assembler = new WindowAssembler(history);
    expect(assembler.assemble({ budget: 2_000, counter }).report.decisions).toBeUndefined();
    const { report } = assembler.assemble({ budget: 2_000, counter, explain: true });
    const decisions = report.decisions!;
    expect(decisions.filter((d) => d.index >= 0).map((d) => d.index)).toEqual(history.map((_, i) => i));
    const by = (id: string) => decisions.find((d) => d.id === id);
    expect(by("s")).toMatchObject({ action: "kept", reason: "instruction" });
    expect(by("u0")).toMatchObject({ action: "dropped", reason: "before-cut" });
    expect(by("orphan")).toMatchObject({ action: "dropped", reason: "orphan-result" });
    expect(by("a")).toMatchObject({ action: "kept", reason: "in-window" });
    expect(decisions.find((d) => d.action === "synthetic")).toMatchObject({ index: -1, reason: "interrupted" });
    const keptTokens = decisions.filter((d) => d.action !== "dropped").reduce((sum, d) => sum + (d.tokens ?? 0), 0);
    expect(keptTokens + counter.replyPriming).toBe(report.windowTokens);
  });
});

describe("counters and cost", () => {
  it("keeps exact sums per counter, and switching back does not recount", () => {
    const history = [system("s"), ...conversation(40)];
    const assembler = new WindowAssembler(history);
    const a = fakeCounter("a");
    const doubled = { ...fakeCounter("b"), countMessage: (m: Message) => 2 * a.countMessage(m) };
    const first = assembler.assemble({ budget: 2_000, counter: a });
    const other = assembler.assemble({ budget: 2_000, counter: doubled });
    expect(other.report.windowTokens).toBe(other.messages.reduce((s, m) => s + doubled.countMessage(m), 0) + doubled.replyPriming);
    expect(other.messages.length).toBeLessThan(first.messages.length);
    const calls = a.calls.messages;
    const again = assembler.assemble({ budget: 2_000, counter: a });
    expect(a.calls.messages - calls).toBeLessThanOrEqual(1); // the placeholder's price; nothing of the history
    // the cut is shared by the counters (hysteresis); the sums are a's own
    expect(again.report).toMatchObject({ cutReason: "kept", firstKeptId: other.report.firstKeptId });
    expect(again.report.windowTokens).toBe(a.countRequest(again.messages));
  });

  it("a first window of a long history counts the window, not the history", () => {
    const history = conversation(5_000); // 10,000 messages
    const lazy = fakeCounter();
    const { report } = new WindowAssembler(history).assemble({ budget: 4_000, counter: lazy });
    expect(lazy.calls.messages).toBeLessThan(200);
    expect(report.historyTokensExact).toBe(false);
    const exact = counter.countRequest(history);
    expect(Math.abs(report.historyTokens - exact) / exact).toBeLessThan(0.05);
  });

  it("an agent-loop turn (append one, assemble) counts only the new message", () => {
    const history = conversation(5_000);
    const lazy = fakeCounter();
    const assembler = new WindowAssembler(history);
    assembler.assemble({ budget: 8_000, counter: lazy });
    for (let i = 0; i < 20; i++) {
      const before = lazy.calls.messages;
      assembler.append(user(`new${i}`, chars(200)));
      assembler.assemble({ budget: 8_000, counter: lazy });
      expect(lazy.calls.messages - before).toBeLessThanOrEqual(3);
    }
  });

  it("rejects a budget that is not a positive finite number, a missing counter, a bad minResultTokens", () => {
    const assembler = new WindowAssembler(conversation(2));
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => assembler.assemble({ budget: bad, counter })).toThrow(expect.objectContaining({ code: "INVALID_BUDGET" }));
    }
    expect(() => assembler.assemble({ budget, counter: {} as never })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    for (const bad of [0, 1.5, -3]) {
      expect(() => assembler.assemble({ budget, counter, minResultTokens: bad })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", path: "minResultTokens" }));
    }
  });
});

describe("with the real token counter (gpt-4o, tiktoken)", () => {
  it("sends exactly the tokens it reports and keeps the invariants", () => {
    const real = getTokenCounter("gpt-4o");
    const history = [system("s"), ...conversation(50), user("u", "run"), call("a", ["c1"]), result("r", "c1", chars(100_000))];
    for (const b of [1_500, 4_000, 20_000]) {
      const { messages, report } = new WindowAssembler(history).assemble({ budget: b, counter: real });
      expect(report.windowTokens).toBe(real.countRequest(messages));
      expect(report.windowTokens).toBeLessThanOrEqual(b);
      expect(checkWindowInvariants(history, messages, { budget: b, counter: real })).toEqual([]);
    }
  });
});
