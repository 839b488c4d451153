/**
 * Repairs (contracts/WINDOW.md, "Repairs"): what a window does with tool histories a provider
 * would reject. Each test checks the window against the independent invariant checker too.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { checkWindowInvariants } from "../../testing/window-invariants.js";
import { INTERRUPTED_RESULT_TEXT, WindowAssembler } from "../../modules/window/index.js";
import { assistant, call, ids, result, results, system, use, user } from "./builders.js";
import { fakeCounter } from "./fake-counter.js";

const counter = fakeCounter();
const budget = 100_000;

function assemble(history: Message[]) {
  const before = JSON.stringify(history);
  const { messages, report } = new WindowAssembler(history).assemble({ budget, counter });
  expect(checkWindowInvariants(history, messages, { budget, counter })).toEqual([]);
  expect(JSON.stringify(history)).toBe(before);
  return { messages, report };
}

describe("a call without a result (crash mid-tool)", () => {
  it("OpenAI: gets one synthetic tool message per missing id, right after the existing results", () => {
    const history = [user("u", "list files"), call("a", ["c1", "c2", "c3"]), result("r2", "c2", "two")];
    const { messages, report } = assemble(history);
    expect(messages.map((m) => [m.role, m.tool_call_id, m.content])).toEqual([
      ["user", undefined, "list files"],
      ["assistant", undefined, null],
      ["tool", "c2", "two"],
      ["tool", "c1", INTERRUPTED_RESULT_TEXT],
      ["tool", "c3", INTERRUPTED_RESULT_TEXT],
    ]);
    expect(messages[3]!.metadata?.window).toEqual({ synthetic: "interrupted-tool-call" });
    expect(report.repaired).toMatchObject({ syntheticResults: 2, interruptedCalls: ["c1", "c3"], orphansDropped: 0 });
  });

  it("Anthropic: gets one user message of is_error tool_result blocks", () => {
    const history = [user("u", "read both"), use("a", ["t1", "t2"]), results("r", [["t1", "one"]])];
    const { messages, report } = assemble(history);
    expect(messages).toHaveLength(4);
    expect(messages[3]).toMatchObject({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "t2", content: INTERRUPTED_RESULT_TEXT, is_error: true }],
      metadata: { window: { synthetic: "interrupted-tool-call" } },
    });
    expect(report.repaired.interruptedCalls).toEqual(["t2"]);
  });

  it("in the middle of the history (the session resumed after the crash)", () => {
    const history = [user("u1", "run it"), call("a1", ["c1"]), user("u2", "are you there?"), assistant("a2", "yes")];
    const { messages } = assemble(history);
    expect(ids(messages)).toEqual(["u1", "a1", "a1:interrupted:c1", "u2", "a2"]);
  });

  it("a result that arrives late still goes right after its call, not a synthetic one", () => {
    const history = [user("u1", "run it"), call("a1", ["c1"]), user("u2", "(hook) build finished"), result("r1", "c1", "done")];
    const { messages, report } = assemble(history);
    expect(ids(messages)).toEqual(["u1", "a1", "r1", "u2"]);
    expect(report.repaired.syntheticResults).toBe(0);
  });

  it("the late result replaces the synthetic one in later windows of the same assembler", () => {
    const assembler = new WindowAssembler([user("u1", "run it"), call("a1", ["c1"])]);
    expect(ids(assembler.assemble({ budget, counter }).messages)).toEqual(["u1", "a1", "a1:interrupted:c1"]);
    assembler.append(result("r1", "c1", "done"));
    const { messages, report } = assembler.assemble({ budget, counter });
    expect(ids(messages)).toEqual(["u1", "a1", "r1"]);
    expect(report.windowTokens).toBe(counter.countRequest(messages));
  });
});

describe("a result whose call is absent or already answered (orphan)", () => {
  it("a tool message is dropped", () => {
    const history = [user("u", "hi"), result("r", "ghost", "stale"), assistant("a", "hello")];
    const { messages, report } = assemble(history);
    expect(ids(messages)).toEqual(["u", "a"]);
    expect(report.repaired).toMatchObject({ orphansDropped: 1, orphanResults: ["ghost"] });
    expect(report.removed).toBe(1);
  });

  it("a second result for an answered call is dropped", () => {
    const history = [user("u", "hi"), call("a", ["c1"]), result("r1", "c1", "first"), result("r2", "c1", "again")];
    expect(ids(assemble(history).messages)).toEqual(["u", "a", "r1"]);
  });

  it("an Anthropic block is removed from its message; the rest of the message stays, marked repaired", () => {
    const history = [user("u", "go"), use("a", ["t1"]), results("r", [["t1", "ok"], ["ghost", "stale"]], "and then?")];
    const { messages, report } = assemble(history);
    expect(messages[2]).toMatchObject({
      content: [{ type: "tool_result", tool_use_id: "t1" }, { type: "text", text: "and then?" }],
      metadata: { id: "r", window: { repaired: { orphanResults: 1 } } },
    });
    expect(report.repaired.orphanResults).toEqual(["ghost"]);
  });

  it("a user message left with nothing is dropped", () => {
    const history = [user("u", "go"), results("r", [["ghost", "stale"]]), assistant("a", "ok")];
    expect(ids(assemble(history).messages)).toEqual(["u", "a"]);
  });

  it("a user message left with text becomes a user turn that can start a window", () => {
    const history = [system("s"), results("r", [["ghost", "stale"]], "please continue"), assistant("a", "ok")];
    const { messages } = assemble(history);
    expect(ids(messages)).toEqual(["s", "r", "a"]);
    expect(messages[1]!.content).toEqual([{ type: "text", text: "please continue" }]);
  });
});

describe("pairing", () => {
  it("an Anthropic tool_result-only user message is not a turn start: the cut never lands on it", () => {
    const big = "x".repeat(4_000);
    const history = [user("u1", "start"), use("a1", ["t1"]), results("r1", [["t1", big]]), assistant("a2", big), use("a3", ["t2"]), results("r3", [["t2", "small"]])];
    const assembler = new WindowAssembler(history);
    const { messages, report } = assembler.assemble({ budget: 1_600, counter });
    expect(checkWindowInvariants(history, messages, { budget: 1_600, counter })).toEqual([]);
    expect(messages[0]).toMatchObject({ role: "user", content: "start" });
    expect(report.cutIndex).toBe(0);
  });

  it("mixed styles in one history pair independently", () => {
    const history = [user("u", "go"), call("a1", ["c1"]), result("r1", "c1", "one"), use("a2", ["t1"]), results("r2", [["t1", "two"]])];
    expect(ids(assemble(history).messages)).toEqual(["u", "a1", "r1", "a2", "r2"]);
  });
});
