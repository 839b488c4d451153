/**
 * checkWindowInvariants finds each kind of violation (one hand-made bad window per check), and
 * accepts the valid variants the contract allows.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { checkWindowInvariants } from "../../testing/window-invariants.js";
import { assistant, call, chars, result, results, system, use, user } from "./builders.js";
import { fakeCounter } from "./fake-counter.js";

const counter = fakeCounter();
const copy = (m: Message): Message => structuredClone(m);
const check = (history: Message[], window: Message[], budget = 100_000, extraMessages?: Message[]) =>
  checkWindowInvariants(history, window, { budget, counter, extraMessages });
const names = (problems: string[]) => [...new Set(problems.map((p) => p.slice(0, p.indexOf(":"))))];

const history = [system("s"), user("u1", "first"), call("a1", ["c1", "c2"]), result("r1", "c1", "one"), result("r2", "c2", "two"), user("u2", "second"), assistant("a2", "answer")];

describe("checkWindowInvariants", () => {
  it("accepts the whole history copied, and a valid cut", () => {
    expect(check(history, history.map(copy))).toEqual([]);
    expect(check(history, [history[0]!, history[5]!, history[6]!].map(copy))).toEqual([]);
  });

  it.each<[string, () => string[]]>([
    ["fits-budget", () => check(history, history.map(copy), 20)],
    ["request-only-last", () => check(history, history.map(copy), 100_000, [user("x", "extra")])],
    ["known-messages", () => check(history, [copy(history[0]!), user("zz", "invented")])],
    ["no-duplicates", () => check(history, [copy(history[0]!), copy(history[5]!), copy(history[5]!)])],
    ["copies", () => check(history, [history[0]!, copy(history[5]!)])],
    ["instructions-first", () => check(history, [copy(history[5]!), copy(history[0]!)])],
    ["instructions-first", () => check(history, [{ ...copy(history[0]!), content: "changed" }, copy(history[5]!)])],
    ["results-follow-calls", () => check(history, [copy(history[0]!), copy(history[1]!), copy(history[2]!), copy(history[3]!)])],
    ["results-follow-calls", () => check(history, [copy(history[0]!), copy(history[1]!), copy(history[3]!)])],
    ["results-follow-calls", () => check(history, [history[0]!, history[1]!, history[2]!, history[3]!, history[5]!, history[4]!].map(copy))],
    ["stored-order", () => check(history, [history[0]!, history[5]!, history[6]!, history[1]!].map(copy))],
    ["first-is-user-turn", () => check(history, [copy(history[0]!), copy(history[6]!)])],
    ["changes-marked", () => check(history, [copy(history[0]!), { ...copy(history[5]!), content: "edited" }])],
  ])("finds %s", (name, run) => {
    expect(names(run())).toContain(name);
  });

  it("finds a critical message missing or changed", () => {
    const h = [user("u1", "keep me", { critical: true }), user("u2", "next")];
    expect(names(check(h, [copy(h[1]!)]))).toEqual(["critical-kept"]);
    const changed = { ...copy(h[0]!), content: "kept…", metadata: { id: "u1", critical: true, window: { truncated: { chars: 7, keptChars: 0, parts: 1 } } } };
    expect(names(check(h, [changed, copy(h[1]!)]))).toContain("critical-kept");
  });

  it("finds a synthetic result that hides a stored one, and a stored result paired with another call", () => {
    const h = [user("u", "go"), call("a1", ["c1"]), result("r1", "c1", "real"), call("a2", ["c1"]), result("r2", "c1", "second")];
    const synthetic: Message = { role: "tool", tool_call_id: "c1", content: "[interrupted]", metadata: { id: "x", window: { synthetic: "interrupted-tool-call" } } };
    expect(names(check(h, [copy(h[0]!), copy(h[1]!), synthetic]))).toContain("real-results-kept");
    expect(names(check(h, [h[0]!, h[1]!, h[4]!].map(copy)))).toContain("results-match-history");
  });

  it("finds a placeholder anywhere but right after the instructions", () => {
    const placeholder: Message = { role: "user", content: "[earlier conversation omitted]", metadata: { id: "p", window: { synthetic: "omitted-history" } } };
    expect(names(check(history, [copy(history[0]!), copy(history[5]!), placeholder]))).toContain("placeholder-position");
    expect(check(history, [copy(history[0]!), placeholder, copy(history[5]!), copy(history[6]!)])).toEqual([]);
  });

  it("finds a window without the latest user turn (issue 14, item 3: the current prompt must be sent)", () => {
    const placeholder: Message = { role: "user", content: "[earlier conversation omitted]", metadata: { id: "p", window: { synthetic: "omitted-history" } } };
    expect(names(check(history, [copy(history[0]!), placeholder, copy(history[6]!)]))).toEqual(["last-prompt-kept"]);
    expect(names(check(history, [copy(history[0]!)]))).toEqual(["last-prompt-kept"]);
    expect(check(history, [copy(history[0]!), copy(history[5]!)])).toEqual([]);
  });

  it("accepts truncation and orphan repairs when they are marked", () => {
    const h = [user("u", "go"), use("a", ["t1"]), results("r", [["t1", chars(500)], ["ghost", "x"]], "more", { critical: true })];
    const repaired = { ...copy(h[2]!), content: [(h[2]!.content as never[])[0]!, (h[2]!.content as never[])[2]!], metadata: { id: "r", critical: true, window: { repaired: { orphanResults: 1 } } } };
    expect(check(h, [copy(h[0]!), copy(h[1]!), repaired])).toEqual([]);
    expect(names(check(h, [copy(h[0]!), copy(h[1]!), { ...repaired, metadata: { id: "r", critical: true } }]))).toContain("critical-kept");
  });

  it("does not require a user turn first when the history has none (a tool_result-only user message is not one)", () => {
    const h = [system("s"), use("a", ["t1"]), results("r", [["t1", "ok"]], "text after the result")];
    expect(check(h, h.map(copy))).toEqual([]);
  });
});
