/**
 * Hook turn notes (contracts/WINDOW.md "Notes", contracts/HOOKS.md): a stored system/developer
 * injection made after the session started (prompt:submit, tool:post …) is marked
 * `metadata.scope: "turn"` by the coordinator and belongs to its turn — sent in stored order,
 * counted and cut with it — instead of being hoisted and kept forever as an instruction.
 * Injections at session:start / session:resume / session:fork stay instructions.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { checkWindowInvariants, isInstruction, isTurnNote } from "../../testing/window-invariants.js";
import { Coordinator } from "../../core/coordinator.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { mount as mountSimple } from "../../modules/context-simple/index.js";
import { HistoryIndex } from "../../modules/window/history-index.js";
import { WindowAssembler, type AssembleOptions } from "../../modules/window/index.js";
import { HistoryUnits } from "../../modules/strategies/history-units.js";
import { SlidingWindowCompaction } from "../../modules/strategies/trimming/sliding-window.js";
import { assistant, call, chars, result, system, user } from "./builders.js";
import { fakeCounter } from "./fake-counter.js";

const counter = fakeCounter();
const text = (m: Message) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
const idsOf = (ms: readonly Message[]) => ms.map((m) => m.metadata?.id);
/** A note as processHookResult stores it. */
const note = (id: string, content: string, meta: Record<string, unknown> = {}): Message => ({
  role: "system",
  content,
  metadata: { id, source: "hook", hook: "h", event: "tool:post", scope: "turn", ...meta },
});

function assemble(history: Message[], options: Omit<AssembleOptions, "counter">, assembler = new WindowAssembler(history)) {
  const out = assembler.assemble({ counter, ...options });
  expect(checkWindowInvariants(history, out.messages, { budget: options.budget, counter, extraMessages: options.extraMessages })).toEqual([]);
  expect(out.report.windowTokens).toBe(counter.countRequest(out.messages));
  return out;
}

async function session(options: { budgetModel?: string } = {}) {
  const coordinator = new Coordinator();
  const context = await mountSimple(coordinator, options.budgetModel ? { model: options.budgetModel } : {});
  let turn = 0;
  coordinator.hooks.register("prompt:submit", () => ({ action: "inject_context", context_injection: `Todo reminder for turn ${turn}: ` + "keep the tests green. ".repeat(6) }), { name: "todo-reminder" });
  coordinator.hooks.register("tool:post", () => ({ action: "inject_context", context_injection: `Lint after turn ${turn}: 0 errors, 2 warnings in src/a.ts` }), { name: "linter" });
  /** One agent turn as the orchestrators run it: prompt:submit injections, the prompt, an answer, tool:post injections. */
  const runTurn = async (prompt = `Question ${turn + 1}: what next?`) => {
    turn++;
    const submitted = await coordinator.hooks.emit("prompt:submit", { prompt });
    await coordinator.processHookResult(submitted, "prompt:submit", submitted.decidedBy ?? "test");
    await context.addMessage({ role: "user", content: prompt });
    await context.addMessage({ role: "assistant", content: `Answer ${turn}. ` + "Done. ".repeat(10) });
    const post = await coordinator.hooks.emit("tool:post", { tool: "bash", input: {}, result: { success: true, output: "" } } as never);
    await coordinator.processHookResult(post, "tool:post", post.decidedBy ?? "test");
  };
  return { coordinator, context, runTurn };
}

describe("hook turn notes: the defect (a hook storing a system note every turn)", () => {
  it("1,000 turns at a 2,000-token budget: every window is valid, holds the recent conversation, and each note sits with its turn", async () => {
    const { context, runTurn } = await session();
    const tokens = getTokenCounter("gpt-4o");
    for (let i = 0; i < 1000; i++) {
      await runTurn();
      if (i % 50 !== 49) continue;
      const window = await context.getMessagesForRequest(2_000);
      expect(checkWindowInvariants(await context.getMessages(), window, { budget: 2_000, counter: tokens })).toEqual([]);
      const conversation = window.filter((m) => m.role === "user" || m.role === "assistant");
      expect(conversation.length).toBeGreaterThan(4);
      expect(window.filter((m) => m.role === "system").length).toBeLessThan(window.length / 2 + 1);
      expect(text(window.at(-1)!)).toContain(`Lint after turn ${i + 1}`);
      // The newest prompt's reminder right before it, not hoisted in front of the conversation.
      const lastUser = window.findLastIndex((m) => m.role === "user");
      expect(text(window[lastUser - 1]!)).toContain(`Todo reminder for turn ${i + 1}`);
    }
  }, 60_000);

  it("the prompt-cache prefix holds: while nothing is cut, each window is a prefix of the next one", async () => {
    const { context, runTurn } = await session();
    let previous: Message[] | undefined;
    for (let i = 0; i < 20; i++) {
      await runTurn();
      const window = await context.getMessagesForRequest(100_000);
      if (previous) expect(idsOf(window.slice(0, previous.length))).toEqual(idsOf(previous));
      previous = window;
    }
  });

  it("the coordinator marks stored system/developer injections after the session started as turn notes, and nothing else", async () => {
    const { coordinator, context } = await session();
    const inject = (event: string, extra: Record<string, unknown> = {}) =>
      coordinator.processHookResult({ action: "inject_context", context_injection: `from ${event}`, ...extra }, event, "h");
    await inject("session:start");
    await inject("session:resume");
    await inject("session:fork");
    await inject("prompt:submit");
    await inject("tool:post", { context_injection_role: "developer" });
    await inject("tool:post", { context_injection_role: "user" });
    await inject("prompt:submit", { ephemeral: true });
    const stored = await context.getMessages();
    expect(stored.map((m) => [m.role, m.metadata?.event, m.metadata?.scope])).toEqual([
      ["system", "session:start", undefined],
      ["system", "session:resume", undefined],
      ["system", "session:fork", undefined],
      ["system", "prompt:submit", "turn"],
      ["developer", "tool:post", "turn"],
      ["user", "tool:post", undefined],
    ]);
    expect(coordinator.takeEphemeralInjections()[0]?.metadata?.scope).toBeUndefined();
    expect(stored.map((m) => isInstruction(m))).toEqual([true, true, true, false, false, false]);
    expect(stored.map((m) => isTurnNote(m))).toEqual([false, false, false, true, true, false]);
  });
});

describe("hook turn notes in the window", () => {
  it("a note stored before the first user message (prompt:submit on turn 1) is in the first window, right before the prompt", async () => {
    const { context, runTurn } = await session();
    await runTurn("Hello, first question");
    const window = await context.getMessagesForRequest(100_000);
    expect(window.map((m) => m.role)).toEqual(["system", "user", "assistant", "system"]);
    expect(text(window[0]!)).toContain("Todo reminder for turn 1");
    expect(window[0]!.metadata?.scope).toBe("turn");
  });

  it("notes stored right before a prompt open its turn: a cut at that turn keeps them (before the prompt), older notes go with their turns", () => {
    // l1 (a note at the very end of turn 1, nothing after it) is in the run before u2: it joins turn 2.
    const history = [
      system("s", "You are an agent."),
      note("n1", "todo for turn 1"),
      user("u1", chars(2_000, "first")),
      assistant("a1", chars(2_000, "answer one")),
      note("l1", "lint after turn 1"),
      note("n2a", "todo for turn 2"),
      note("n2b", "another reminder for turn 2"),
      user("u2", "second"),
      assistant("a2", "answer two"),
      note("l2", "lint after turn 2"),
    ];
    const { messages, report } = assemble(history, { budget: 800 });
    expect(report.cutReason).not.toBe("fits");
    expect(idsOf(messages)).toEqual(["s", "l1", "n2a", "n2b", "u2", "a2", "l2"]);
    expect(idsOf(assemble(history.slice(0, 4), { budget: 10_000 }).messages)).toEqual(["s", "n1", "u1", "a1"]);
  });

  it("a run of notes becomes its prompt's turn unit (reported as a change), standalone notes are plain units", () => {
    const index = new HistoryIndex();
    const changed: number[] = [];
    index.onUnitChanged = (u) => changed.push(u);
    for (const m of [user("u1", "hi"), assistant("a1", "hello"), note("n1", "a"), note("n2", "b"), user("u2", "next"), note("l2", "c"), call("c", ["t1"]), result("r", "t1", "out")]) index.append(m);
    expect(index.instructions).toEqual([]);
    expect(index.units.map((u) => [u.kind, u.members.map((m) => m.stored)])).toEqual([
      ["turn", [0]],
      ["plain", [1]],
      ["turn", [2, 3, 4]],
      ["plain", [5]],
      ["group", [6, 7]],
    ]);
    expect(index.turnStarts).toEqual([0, 2]);
    expect(index.units[2]!.prompt?.stored).toBe(4);
    expect(changed).toEqual([2, 2, 4]);
  });

  it("a critical note is its own unit, kept verbatim with the window like other critical messages; its neighbours are cut", () => {
    const history = [
      system("s"),
      user("u1", chars(1_500, "old")),
      note("c1", "CRITICAL: never push to main", { critical: true }),
      note("l1", "lint: 3 warnings"),
      assistant("a1", chars(1_500, "old answer")),
      user("u2", "new question"),
      assistant("a2", "new answer"),
    ];
    const { messages } = assemble(history, { budget: 300 });
    expect(idsOf(messages)).toEqual(["s", "window:omitted-history", "c1", "u2", "a2"]); // the placeholder opens the window
    expect(messages[2]).toMatchObject({ role: "system", content: "CRITICAL: never push to main" });
  });

  it("a session:start injection is still an instruction: first in every window, kept when its turn is cut", async () => {
    const { coordinator, context, runTurn } = await session();
    await coordinator.processHookResult({ action: "inject_context", context_injection: "Project context: a TypeScript monorepo." }, "session:start", "project");
    for (let i = 0; i < 40; i++) await runTurn();
    const window = await context.getMessagesForRequest(1_500);
    expect(window[0]).toMatchObject({ role: "system", content: "Project context: a TypeScript monorepo." });
    expect(window[0]!.metadata?.scope).toBeUndefined();
    expect(window.filter((m) => m.role === "user").length).toBeLessThan(40);
  });

  it("explain reports each note with its action and a reason that says it is a turn note", async () => {
    const { context, runTurn } = await session();
    for (let i = 0; i < 30; i++) await runTurn();
    await context.getMessagesForRequest(1_500, undefined, { explain: true });
    const explanation = context.explainLastWindow()!.explanation!;
    const notes = explanation.filter((e) => e.role === "system");
    expect(notes.length).toBe(60);
    const kept = notes.filter((e) => e.decision === "kept");
    const dropped = notes.filter((e) => e.decision === "dropped");
    expect(kept.length).toBeGreaterThan(0);
    expect(dropped.length).toBeGreaterThan(0);
    for (const e of kept) expect(e.reason).toMatch(/^hook turn note, sent with its turn: /);
    for (const e of dropped) expect(e.reason).toMatch(/^hook turn note, cut with its turn: /);
    expect(explanation.some((e) => e.reason.includes("instruction"))).toBe(false);
  });
});

describe("hook turn notes under the ladder", () => {
  it("cap-prompt truncates the user message, not the notes that open its turn, and counts them exactly", () => {
    const history = [system("s"), note("n", "reminder: run the linter"), user("u", "FIRST " + chars(20_000, "prompt") + " LAST")];
    const { messages, report } = assemble(history, { budget: 600 });
    expect(report.ladder).toBe("cap-prompt");
    expect(idsOf(messages)).toEqual(["s", "n", "u"]);
    expect(messages[1]!.content).toBe("reminder: run the linter");
    expect(messages[2]!.metadata?.window).toMatchObject({ truncated: { parts: 1 } });
  });

  it("drop-older may drop a note stored later in the last turn; the notes before the prompt stay with it", () => {
    const history = [
      note("n", "todo: keep it small"),
      user("u", "fix it"),
      call("c1", ["t1"]),
      result("r1", "t1", chars(400, "one")),
      note("l1", "lint after call 1: " + chars(2_000, "warn")),
      call("c2", ["t2"]),
      result("r2", "t2", chars(400, "two")),
    ];
    const { messages, report } = assemble(history, { budget: 450, minResultTokens: 60 });
    expect(report.ladder).toBe("drop-older");
    expect(idsOf(messages).slice(0, 2)).toEqual(["n", "u"]);
    expect(idsOf(messages)).not.toContain("l1");
  });
});

describe("checkWindowInvariants and turn notes", () => {
  const history = [system("s"), user("u1", "first"), assistant("a1", "one"), note("n2", "todo 2"), user("u2", "second"), assistant("a2", "two"), note("l2", "lint 2")];
  const copy = (m: Message) => structuredClone(m);
  const at = (...k: number[]) => k.map((i) => copy(history[i]!));
  const check = (window: Message[]) => checkWindowInvariants(history, window, { budget: 100_000, counter });
  const names = (problems: string[]) => [...new Set(problems.map((p) => p.slice(0, p.indexOf(":"))))];

  it("accepts notes in stored order, a window opening with the notes of its first turn, and a note cut with its turn", () => {
    expect(check(at(0, 1, 2, 3, 4, 5, 6))).toEqual([]);
    expect(check(at(0, 3, 4, 5, 6))).toEqual([]);
    expect(check(at(0, 4, 5))).toEqual([]);
  });

  it("flags a note hoisted among the instructions or in front of the conversation (the old behaviour)", () => {
    expect(names(check(at(3, 6, 0, 1, 2, 4, 5)))).toContain("instructions-first");
    expect(names(check(at(0, 3, 6, 1, 2, 4, 5)))).toContain("stored-order");
  });

  it("flags a misplaced note (after a later message) and a window opening with notes not followed by a user turn", () => {
    expect(names(check(at(0, 1, 2, 4, 3, 5)))).toContain("stored-order");
    expect(names(check(at(0, 3, 5)))).toContain("first-is-user-turn");
    expect(names(check(at(0, 6)))).toContain("first-is-user-turn");
  });

  it("judges a window copy by its stored message: a note whose copy lost its metadata is still not an instruction", () => {
    const stripped = at(0, 3, 4, 5);
    delete stripped[1]!.metadata;
    stripped[1]!.metadata = { id: "n2" };
    expect(check(stripped)).toEqual([]);
  });
});

describe("strategies and turn notes", () => {
  it("HistoryUnits.extend: a run of notes split before its prompt arrives is re-assigned to the turn unit", () => {
    const first = [user("u1", "hi"), assistant("a1", "hello"), note("n", "todo")];
    const units = new HistoryUnits(first);
    expect(units.units[2]!.kind).toBe("plain");
    const more = HistoryUnits.extend(units, [...first, user("u2", "next"), assistant("a2", "ok")]);
    expect(more.units.map((u) => u.kind)).toEqual(["turn", "plain", "turn", "plain"]);
    expect([...more.unitOf]).toEqual([0, 1, 2, 2, 3]);
  });

  it("sliding-window counts notes as conversation and cuts them with their turn", () => {
    const history: Message[] = [system("s")];
    for (let t = 1; t <= 10; t++) history.push(note(`n${t}`, `todo ${t}`), user(`u${t}`, `q${t}`), assistant(`a${t}`, `a${t}`));
    const out = new SlidingWindowCompaction({ maxMessages: 6, targetRatio: 1 }).compact(history, { explain: { enabled: false, record: () => {} } } as never);
    expect(idsOf(out)).toEqual(["s", "n9", "u9", "a9", "n10", "u10", "a10"]);
  });
});
