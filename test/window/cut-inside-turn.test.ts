/**
 * Rule 3b of the cut (modules/window/cut-policy.ts): when the turn before the newest
 * turn start is larger than τ·B, the window starts inside that turn behind the placeholder user
 * message, instead of collapsing to the newest turn alone.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { checkWindowInvariants } from "../../testing/window-invariants.js";
import { WindowAssembler } from "../../modules/window/index.js";
import { assistant, call, chars, result, system, user } from "./builders.js";
import { fakeCounter } from "./fake-counter.js";

const counter = fakeCounter();
const budget = 2_000; // θ·B = 1,800, τ·B = 1,400

/** One long agent turn: a prompt, then `steps` read_file calls with results of `size` chars and a note each. */
function longTurn(tag: string, steps: number, size: number): Message[] {
  const out: Message[] = [user(`${tag}u`, `please work on ${tag}`)];
  for (let i = 0; i < steps; i++) {
    out.push(call(`${tag}c${i}`, [`${tag}k${i}`]), result(`${tag}r${i}`, `${tag}k${i}`, chars(size, `${tag}${i}`)), assistant(`${tag}a${i}`, `step ${i} done`));
  }
  return out;
}

describe("cut inside the previous turn (rule 3b)", () => {
  it("a new short turn after a turn larger than τ·B keeps the newest part of that turn, behind the placeholder", () => {
    const history = [system("s"), user("t0u", "hello"), assistant("t0a", "hi"), ...longTurn("big", 12, 600)];
    const assembler = new WindowAssembler(history);
    assembler.assemble({ budget, counter });
    assembler.append(user("next", "thanks, now summarise what you did"));
    const { messages, report } = assembler.assemble({ budget, counter });
    expect(checkWindowInvariants(history.concat(user("next", "thanks, now summarise what you did")), messages, { budget, counter })).toEqual([]);
    // Not collapsed: more than half of τ·B is used, and it holds steps of the big turn.
    expect(report.windowTokens).toBeGreaterThan(0.35 * budget);
    expect(report.windowTokens).toBeLessThanOrEqual(0.7 * budget);
    const idsKept = messages.map((m) => m.metadata?.id);
    expect(idsKept).toContain("bigr11");
    expect(idsKept.at(-1)).toBe("next");
    // The window opens with a user message (the placeholder), right after the instructions.
    expect(messages[0]!.role).toBe("system");
    expect(messages[1]!.role).toBe("user");
    expect((messages[1]!.metadata?.window as { synthetic?: unknown } | undefined)?.synthetic).toBeDefined();
  });

  it("without a large previous turn the cut stays at a turn start (no placeholder)", () => {
    const history: Message[] = [system("s")];
    for (let t = 0; t < 40; t++) history.push(user(`t${t}u`, chars(120, `q${t}`)), assistant(`t${t}a`, chars(200, `a${t}`)));
    const { messages, report } = new WindowAssembler(history).assemble({ budget, counter });
    expect(report.cutReason).toBe("recut");
    expect(messages[1]!.metadata?.id).toMatch(/^t\d+u$/);
    expect(report.repaired.placeholder).toBe(false);
  });
});
