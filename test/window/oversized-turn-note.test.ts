/**
 * Issue 14, item 3: a hook's turn note larger than the budget (a 41 KB injection at
 * `prompt:submit`, under the 64 KiB per-injection limit) must never cost the window its prompt.
 * The note is conversation cut with its turn: when the newest turn cannot fit, the note is
 * truncated (marked `metadata.window.truncated`) before the prompt is touched; when not even the
 * prompt fits, BUDGET_TOO_SMALL with the numbers — never a window without the current prompt.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { checkWindowInvariants } from "../../testing/window-invariants.js";
import { Coordinator } from "../../core/coordinator.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { mount as mountSimple } from "../../modules/context-simple/index.js";
import { TRUNCATION_MARKER_PATTERN, WindowAssembler } from "../../modules/window/index.js";
import { chars, system, user } from "./builders.js";
import { fakeCounter } from "./fake-counter.js";

const PROMPT = "Please fix the failing test in src/a.ts";
/** ~41 KB of repository notes, as a prompt:submit hook might inject them. */
const NOTE = "REPO NOTES BEGIN\n" + "src/a.ts: exports parse(), format(); tests in test/a.test.ts.\n".repeat(670) + "REPO NOTES END";

async function sessionWithLargeNote() {
  const coordinator = new Coordinator();
  const context = await mountSimple(coordinator, {});
  coordinator.hooks.register("prompt:submit", () => ({ action: "inject_context", context_injection: NOTE }), { name: "repo-notes" });
  const submitted = await coordinator.hooks.emit("prompt:submit", { prompt: PROMPT });
  await coordinator.processHookResult(submitted, "prompt:submit", submitted.decidedBy ?? "repo-notes");
  await context.addMessage({ role: "user", content: PROMPT });
  return { coordinator, context };
}

const note = (id: string, content: string): Message => ({ role: "system", content, metadata: { id, source: "hook", hook: "h", event: "prompt:submit", scope: "turn" } });

describe("a turn note larger than the budget (issue 14, item 3)", () => {
  it("the reproduction: a 41 KB prompt:submit note at a 2,000-token budget — the window keeps the whole prompt and a truncated, marked note", async () => {
    expect(Buffer.byteLength(NOTE)).toBeGreaterThan(40_000);
    expect(Buffer.byteLength(NOTE)).toBeLessThan(64 * 1024);
    const { context } = await sessionWithLargeNote();
    const stored = await context.getMessages();
    const window = await context.getMessagesForRequest(2_000);

    const users = window.filter((m) => m.role === "user");
    expect(users).toHaveLength(1);
    expect(users[0]!.content).toBe(PROMPT);
    expect(window.at(-1)).toMatchObject({ role: "user", content: PROMPT });
    const sentNote = window.find((m) => m.metadata?.scope === "turn")!;
    expect(sentNote.content).toMatch(/^REPO NOTES BEGIN/);
    expect(sentNote.content).toMatch(/REPO NOTES END$/);
    expect(sentNote.content).toMatch(TRUNCATION_MARKER_PATTERN);
    expect(sentNote.metadata?.window).toMatchObject({ truncated: { chars: NOTE.length, parts: 1 } });
    const counter = getTokenCounter("gpt-4o");
    expect(checkWindowInvariants(stored, window, { budget: 2_000, counter })).toEqual([]);
    // The stored note is untouched.
    expect((await context.getMessages()).find((m) => m.metadata?.scope === "turn")!.content).toBe(NOTE);
  });

  it("the note is cut before the prompt: the prompt stays whole while a truncated note leaves room for it", () => {
    const counter = fakeCounter();
    const history = [system("s", "be brief"), note("n", chars(40_000, "note")), user("u", "FIRST " + chars(2_000, "prompt") + " LAST")];
    const { messages, report } = new WindowAssembler(history).assemble({ budget: 1_500, counter });
    expect(report.ladder).toBe("cap-notes");
    expect(messages.map((m) => m.metadata?.id)).toEqual(["s", "n", "u"]);
    expect(messages[2]!.content).toBe(history[2]!.content);
    expect(messages[1]!.metadata?.window).toMatchObject({ truncated: { chars: 40_000, parts: 1 } });
    expect(checkWindowInvariants(history, messages, { budget: 1_500, counter })).toEqual([]);
  });

  it("when the prompt alone is too large too, the note goes down to its marker and the prompt is cut head and tail", () => {
    const counter = fakeCounter();
    const history = [note("n", chars(40_000, "note")), user("u", "FIRST " + chars(40_000, "prompt") + " LAST")];
    const { messages, report } = new WindowAssembler(history).assemble({ budget: 800, counter });
    expect(report.ladder).toBe("cap-prompt");
    expect(messages.map((m) => m.metadata?.id)).toEqual(["n", "u"]);
    expect(messages[0]!.content).toMatch(TRUNCATION_MARKER_PATTERN);
    expect(messages[1]!.content).toMatch(/^FIRST /);
    expect(messages[1]!.content).toMatch(/ LAST$/);
    expect(checkWindowInvariants(history, messages, { budget: 800, counter })).toEqual([]);
  });

  it("when not even the prompt's marker fits, BUDGET_TOO_SMALL with the numbers — the prompt is never dropped silently", () => {
    const counter = fakeCounter();
    const sys = system("s", chars(3_900));
    const budget = counter.countMessage(sys) + counter.replyPriming + 5;
    const history = [sys, note("n", chars(40_000, "note")), user("u", chars(5_000))];
    let error: unknown;
    try {
      new WindowAssembler(history).assemble({ budget, counter });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: "BUDGET_TOO_SMALL", details: { module: "context/window", budget } });
    const details = (error as { details: { required: number; promptMinimumTokens: number; systemTokens: number } }).details;
    expect(details.required).toBeGreaterThan(budget);
    expect(details.promptMinimumTokens).toBeGreaterThan(0);
    expect(details.required).toBe(details.systemTokens + counter.replyPriming + details.promptMinimumTokens);
  });
});
