/**
 * The ladder (contracts/WINDOW.md): how a window is made to fit when even the latest turn start
 * does not, and BUDGET_TOO_SMALL when nothing can.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { checkWindowInvariants } from "../../testing/window-invariants.js";
import { OMITTED_HISTORY_TEXT, TRUNCATION_MARKER_PATTERN, WindowAssembler, type AssembleOptions } from "../../modules/window/index.js";
import { assistant, call, chars, conversation, ids, result, system, use, results, user } from "./builders.js";
import { fakeCounter } from "./fake-counter.js";

const counter = fakeCounter();

function assemble(history: Message[], options: Omit<AssembleOptions, "counter">, assembler = new WindowAssembler(history)) {
  const before = JSON.stringify(history);
  const out = assembler.assemble({ counter, ...options });
  expect(checkWindowInvariants(history, out.messages, { budget: options.budget, counter, extraMessages: options.extraMessages })).toEqual([]);
  expect(out.report.windowTokens).toBe(counter.countRequest(out.messages));
  expect(JSON.stringify(history)).toBe(before);
  return out;
}

/** One user prompt followed by `groups` tool calls, each with a result of `size` characters. */
function agentTurn(groups: number, size: number, prefix = "g"): Message[] {
  const out: Message[] = [user(`${prefix}-prompt`, "fix the failing tests")];
  for (let i = 0; i < groups; i++) out.push(call(`${prefix}${i}c`, [`${prefix}${i}`]), result(`${prefix}${i}r`, `${prefix}${i}`, chars(size, `output ${i}`)));
  return out;
}

describe("step 1 (cap-results): the largest tool results are truncated, head and tail kept", () => {
  it("a single result larger than the budget is truncated, never sent whole, never dropped while its call is kept", () => {
    const huge = "FIRST LINE\n" + chars(200_000) + "\nLAST LINE";
    const history = [system("s"), user("u", "run the tests"), call("a", ["c1"]), result("r", "c1", huge)];
    const { messages, report } = assemble(history, { budget: 2_000 });
    expect(report).toMatchObject({ cutReason: "ladder", ladder: "cap-results", truncated: 1, removed: 0 });
    const sentResult = messages[3]!;
    expect(sentResult).toMatchObject({ role: "tool", tool_call_id: "c1", metadata: { id: "r", window: { truncated: { chars: huge.length, parts: 1 } } } });
    expect(sentResult.content).toMatch(/^FIRST LINE/);
    expect(sentResult.content).toMatch(/LAST LINE$/);
    expect(sentResult.content).toMatch(TRUNCATION_MARKER_PATTERN);
  });

  it("caps the largest results first and leaves small ones whole", () => {
    const history = [user("u", "go"), call("a1", ["c1"]), result("r1", "c1", chars(20_000)), call("a2", ["c2"]), result("r2", "c2", "small output")];
    const { messages } = assemble(history, { budget: 3_000 });
    expect(messages.find((m) => m.metadata?.id === "r2")!.content).toBe("small output");
    expect(messages.find((m) => m.metadata?.id === "r1")!.metadata?.window).toBeDefined();
  });

  it("truncates Anthropic tool_result blocks one by one, keeping is_error and the other blocks", () => {
    const history = [user("u", "go"), use("a", ["t1", "t2"]), { ...results("r", [["t1", chars(30_000)], ["t2", "ok"]], "continue"), metadata: { id: "r" } }];
    const { messages } = assemble(history, { budget: 2_500 });
    const content = messages[2]!.content as { type: string; content?: string; text?: string }[];
    expect(content.map((b) => b.type)).toEqual(["tool_result", "tool_result", "text"]);
    expect(content[0]!.content).toMatch(TRUNCATION_MARKER_PATTERN);
    expect(content[1]!.content).toBe("ok");
  });

  it("a huge result in an older turn is cut away with its turn, not sent", () => {
    const history = [user("u1", "first"), call("a", ["c1"]), result("r", "c1", chars(50_000)), assistant("a1", "done"), ...conversation(3)];
    const { messages, report } = assemble(history, { budget: 3_000 });
    expect(report.cutReason).toBe("recut");
    expect(ids(messages)).not.toContain("r");
  });
});

describe("step 2 (drop-older): whole units inside the last turn go, oldest first, the prompt stays", () => {
  it("keeps the prompt and the newest groups, each call with its result", () => {
    const history = [system("s"), ...agentTurn(30, 1_000)];
    const { messages, report } = assemble(history, { budget: 3_000, minResultTokens: 200 });
    expect(report.ladder).toBe("drop-older");
    expect(ids(messages).slice(0, 2)).toEqual(["s", "g-prompt"]);
    expect(ids(messages).at(-1)).toBe("g29r");
    expect(report.removed).toBeGreaterThan(10);
    expect(report.windowTokens).toBeLessThanOrEqual(3_000);
  });

  it("keeps that inner cut on the next turns while the window stays under θ·B (sticky), so windows share a prefix", () => {
    const history = [system("s"), ...agentTurn(30, 1_000)];
    const assembler = new WindowAssembler(history);
    const first = assemble(history, { budget: 3_000, minResultTokens: 200 }, assembler);
    const firstGroup = ids(first.messages)[2];
    history.push(call("n0c", ["n0"]), result("n0r", "n0", "short"));
    assembler.append(history.at(-2)!);
    assembler.append(history.at(-1)!);
    const next = assemble(history, { budget: 3_000, minResultTokens: 200 }, assembler);
    expect(next.report.ladder).toBe("drop-older");
    expect(ids(next.messages)[2]).toBe(firstGroup);
  });
});

describe("steps 3–5: below the floor, the notes, the prompt — never without the prompt", () => {
  it("step 3 (results-to-marker): a critical call's result goes below the floor", () => {
    const history = [user("u0", "start"), call("a0", ["c0"], { critical: true }), result("r0", "c0", chars(40_000)), ...conversation(3), user("u", "go")];
    const { messages, report } = assemble(history, { budget: 200, minResultTokens: 300 });
    expect(report.ladder).toBe("results-to-marker");
    expect(ids(messages)).toContain("a0");
    expect(messages.find((m) => m.metadata?.id === "r0")!.content).toMatch(TRUNCATION_MARKER_PATTERN);
  });

  it("step 5 (cap-prompt): a prompt larger than the budget is truncated head and tail", () => {
    const prompt = "BEGIN " + chars(60_000) + " END";
    const { messages, report } = assemble([system("s"), user("u", prompt)], { budget: 1_000 });
    expect(report.ladder).toBe("cap-prompt");
    expect(messages[1]!.content).toMatch(/^BEGIN /);
    expect(messages[1]!.content).toMatch(/ END$/);
    expect(messages[1]!.metadata?.window).toMatchObject({ truncated: { chars: prompt.length } });
  });

  it("step 5 at its last resort: the prompt cut to its bare marker when only that fits", () => {
    const sys = system("s", chars(3_900));
    const prompt = user("u", chars(5_000));
    const marker = new WindowAssembler([prompt]).assemble({ budget: 40, counter }).messages[0]!;
    const budget = counter.countMessage(sys) + counter.replyPriming + counter.countMessage(marker);
    const { messages, report } = assemble([sys, prompt], { budget });
    expect(report.ladder).toBe("cap-prompt");
    expect(ids(messages)).toEqual(["s", "u"]);
    expect(messages[1]!.content).toMatch(TRUNCATION_MARKER_PATTERN);
  });

  it("when not even a marker of the prompt fits: BUDGET_TOO_SMALL with the numbers, never a window without the prompt", () => {
    const sys = system("s", chars(3_900));
    const budget = counter.countMessage(sys) + counter.replyPriming + 5;
    expect(() => new WindowAssembler([sys, user("u", chars(5_000))]).assemble({ budget, counter })).toThrow(
      expect.objectContaining({ code: "BUDGET_TOO_SMALL", details: expect.objectContaining({ budget, systemTokens: counter.countMessage(sys), promptMinimumTokens: expect.any(Number) }) }),
    );
  });
});

describe("critical messages", () => {
  it("a critical tool group before the cut is kept with all its results, after a placeholder user message", () => {
    const history = [system("s"), user("u0", "set up"), call("a0", ["c0"], { critical: true }), result("r0", "c0", "the config"), ...conversation(30)];
    const { messages, report } = assemble(history, { budget: 2_000 });
    expect(report.cutReason).toBe("recut");
    expect(ids(messages).slice(0, 4)).toEqual(["s", "window:omitted-history", "a0", "r0"]);
    expect(messages[1]).toMatchObject({ role: "user", content: OMITTED_HISTORY_TEXT });
    expect(report.repaired.placeholder).toBe(true);
  });

  it("a critical result keeps its call", () => {
    const history = [user("u0", "set up"), call("a0", ["c0"]), result("r0", "c0", "the config", { critical: true }), ...conversation(30)];
    const { messages } = assemble(history, { budget: 2_000 });
    expect(ids(messages).slice(0, 3)).toEqual(["window:omitted-history", "a0", "r0"]);
  });

  it("a critical user turn before the cut needs no placeholder and is kept verbatim", () => {
    const history = [user("u0", "remember: port 55432", { critical: true }), ...conversation(30)];
    const { messages } = assemble(history, { budget: 2_000 });
    expect(messages[0]).toEqual({ role: "user", content: "remember: port 55432", metadata: { id: "u0", critical: true } });
    expect(messages[0]).not.toBe(history[0]);
  });
});

describe("BUDGET_TOO_SMALL", () => {
  const sys = system("s", chars(1_200));
  const pinned = user("keep", chars(800), { critical: true });
  const prompt = user("u", "hi");
  const history = [sys, pinned, prompt];
  const pinnedTokens = counter.countMessage(sys) + counter.countMessage(pinned) + counter.replyPriming;
  /** The smallest window keeps the last prompt too ("hi" is shorter than its marker: whole). */
  const required = pinnedTokens + counter.countMessage(prompt);

  it("is thrown with the numbers when system + critical alone exceed the budget", () => {
    let error: { code?: string; details?: Record<string, unknown> } | undefined;
    try {
      new WindowAssembler(history).assemble({ budget: pinnedTokens - 1, counter });
    } catch (e) {
      error = e as typeof error;
    }
    expect(error?.code).toBe("BUDGET_TOO_SMALL");
    expect(error?.details).toMatchObject({
      budget: pinnedTokens - 1,
      systemTokens: counter.countMessage(sys),
      criticalTokens: counter.countMessage(pinned),
      replyPriming: 3,
      required: pinnedTokens,
    });
  });

  it("is thrown with the numbers when they fit but the last prompt does not", () => {
    expect(() => new WindowAssembler(history).assemble({ budget: required - 1, counter })).toThrow(
      expect.objectContaining({
        code: "BUDGET_TOO_SMALL",
        details: expect.objectContaining({ budget: required - 1, required, promptMinimumTokens: counter.countMessage(prompt), criticalTokens: counter.countMessage(pinned) }),
      }),
    );
  });

  it("is not thrown when they fit exactly: the window is then the pinned messages and the prompt", () => {
    const { messages } = assemble(history, { budget: required });
    expect(ids(messages)).toEqual(["s", "keep", "u"]);
  });

  it("counts tools and request-only messages in what is required", () => {
    const tools = [{ type: "function" as const, function: { name: "read_file", description: "Read a file", parameters: { type: "object" } } }];
    const extra = [user("x", chars(400))];
    const needed = required + counter.countTools(tools) + counter.countMessage(extra[0]!);
    expect(() => new WindowAssembler(history).assemble({ budget: needed - 1, counter, tools, extraMessages: extra })).toThrow(
      expect.objectContaining({ code: "BUDGET_TOO_SMALL", details: expect.objectContaining({ required: needed }) }),
    );
    expect(() => new WindowAssembler(history).assemble({ budget: needed, counter, tools, extraMessages: extra })).not.toThrow();
  });

  it("counts a critical call's non-critical results at their minimum, a bare marker", () => {
    const big = [user("u", "go"), call("a", ["c1"], { critical: true }), result("r", "c1", chars(40_000))];
    const callTokens = counter.countMessage(big[1]!);
    const { messages } = assemble(big, { budget: callTokens + 60 });
    expect(ids(messages)).toEqual(["u", "a", "r"]);
    expect(messages[2]!.content).toMatch(TRUNCATION_MARKER_PATTERN);
  });
});
