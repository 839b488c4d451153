/**
 * The cut and its hysteresis (contracts/WINDOW.md, "Compaction"): nothing is cut while the history
 * fits under θ·B; then one large step down to τ·B; the cut then stays — consecutive windows share
 * their first kept message and extend the previous window — until the window passes θ·B again.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { checkWindowInvariants } from "../../testing/window-invariants.js";
import { WindowAssembler, type WindowReport } from "../../modules/window/index.js";
import { assistant, chars, conversation, system, user } from "./builders.js";
import { fakeCounter } from "./fake-counter.js";

const counter = fakeCounter();
const budget = 2_000; // θ·B = 1,800, τ·B = 1,400
const sent = (m: Message) => JSON.stringify([m.role, m.content, m.tool_calls, m.tool_call_id, m.name]);

describe("the cut", () => {
  it("rule 1 (fits): nothing is cut while the whole history is ≤ θ·B", () => {
    const history = [system("s"), ...conversation(10)];
    const { messages, report } = new WindowAssembler(history).assemble({ budget, counter });
    expect(report).toMatchObject({ cutReason: "fits", compacted: false, removed: 0, cutIndex: 1, firstKeptId: "t0u", historyTokensExact: true });
    expect(report.historyTokens).toBe(counter.countRequest(history));
    expect(messages).toHaveLength(history.length);
  });

  it("rules 2–3 (kept, recut): one large step to τ·B, then the same first kept message until the window passes θ·B", () => {
    const assembler = new WindowAssembler([system("s")]);
    const reports: WindowReport[] = [];
    const windows: Message[][] = [];
    for (const m of conversation(60)) {
      assembler.append(m);
      const { messages, report } = assembler.assemble({ budget, counter });
      reports.push(report);
      windows.push(messages);
      expect(report.windowTokens).toBe(counter.countRequest(messages));
    }
    const firstRecut = reports.findIndex((r) => r.cutReason !== "fits");
    expect(firstRecut).toBeGreaterThan(0);
    expect(reports.slice(0, firstRecut).every((r) => r.historyTokens <= 0.9 * budget)).toBe(true);
    let recuts = 0;
    for (let i = firstRecut; i < reports.length; i++) {
      const r = reports[i]!;
      const previous = reports[i - 1]!;
      if (r.cutReason === "recut") {
        recuts++;
        expect(r.windowTokens).toBeLessThanOrEqual(0.7 * budget);
        // it moved only because keeping the previous cut would have passed θ·B
        if (previous.cutReason !== "fits") expect(previous.windowTokens + counter.countMessage(conversation(60)[i]!)).toBeGreaterThan(0.9 * budget);
      } else {
        expect(r.cutReason).toBe("kept");
        expect(r.firstKeptId).toBe(previous.firstKeptId);
        expect(r.windowTokens).toBeLessThanOrEqual(0.9 * budget);
        // the previous window is a prefix of this one: the provider's prompt cache keeps hitting
        expect(windows[i]!.slice(0, windows[i - 1]!.length).map(sent)).toEqual(windows[i - 1]!.map(sent));
      }
    }
    // 60 turns × ~110 tokens against 400 tokens of slack: a handful of large steps, not one per turn
    expect(recuts).toBeGreaterThan(3);
    expect(recuts).toBeLessThan(25);
  });

  it("rule 4 (latest): when no cut point reaches τ·B, the latest turn if it fits", () => {
    const history = [...conversation(5), user("last", "q"), assistant("big", chars(6_000))];
    const { report } = new WindowAssembler(history).assemble({ budget, counter });
    expect(report).toMatchObject({ cutReason: "latest", firstKeptId: "last", compacted: true, ladder: undefined });
  });

  it("a budget that shrinks moves the cut; one that grows enough to fit everything removes it", () => {
    const history = conversation(30);
    const assembler = new WindowAssembler(history);
    const first = assembler.assemble({ budget, counter }).report;
    expect(first.cutReason).toBe("recut");
    expect(assembler.assemble({ budget, counter }).report).toMatchObject({ cutReason: "kept", firstKeptId: first.firstKeptId });
    const smaller = assembler.assemble({ budget: 1_000, counter }).report;
    expect(smaller.cutReason).toBe("recut");
    expect(smaller.cutIndex).toBeGreaterThan(first.cutIndex);
    expect(assembler.assemble({ budget: 100_000, counter }).report).toMatchObject({ cutReason: "fits", cutIndex: 0, removed: 0 });
  });

  it("honours compactThreshold and compactTarget", () => {
    const history = conversation(30); // ≈ 3,300 tokens
    const loose = new WindowAssembler(history).assemble({ budget: 4_000, counter, compactThreshold: 0.9 }).report;
    expect(loose.cutReason).toBe("fits");
    const tight = new WindowAssembler(history).assemble({ budget: 4_000, counter, compactThreshold: 0.5, compactTarget: 0.25 }).report;
    expect(tight.cutReason).toBe("recut");
    expect(tight.windowTokens).toBeLessThanOrEqual(1_000);
  });

  it("rejects compactTarget > compactThreshold and shares outside (0, 1]", () => {
    const assembler = new WindowAssembler(conversation(2));
    for (const [compactThreshold, compactTarget] of [[0.5, 0.6], [0, 0], [1.2, 0.7], [0.9, -1]]) {
      expect(() => assembler.assemble({ budget, counter, compactThreshold, compactTarget })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    }
  });

  it("every window of the sequence keeps the invariants", () => {
    const history: Message[] = [system("s")];
    const assembler = new WindowAssembler(history);
    for (const m of conversation(40)) {
      history.push(m);
      assembler.append(m);
      const { messages } = assembler.assemble({ budget, counter });
      expect(checkWindowInvariants(history, messages, { budget, counter })).toEqual([]);
    }
  });
});
