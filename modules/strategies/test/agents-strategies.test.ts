import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { getTokenCounter } from "@amplifier-ts/tokens";
import { createStrategy } from "../registry.js";
import { anthropicGroup, assistant, contextFor, ids, openaiGroup, system, user } from "./helpers.js";

const long = Array.from({ length: 700 }, (_, i) => `w${i * 7919}`).join(" ");

describe("tool-result-compaction", () => {
  it("is lossless for short results: the same object", async () => {
    const history = [user("q"), ...openaiGroup("c1", "short"), ...anthropicGroup("t1", "short too")];
    const out = await createStrategy({ use: "tool-result-compaction", maxChars: 100 }).compact(history, contextFor());
    out.forEach((m, i) => expect(m).toBe(history[i]));
  });

  it("keeps head and tail of long results with the truncation marker, both styles, without mutating", async () => {
    const text = "HEAD" + "-".repeat(1_000) + "TAIL";
    const history = Object.freeze([user("q"), ...openaiGroup("c1", text), ...anthropicGroup("t1", text)]);
    const before = JSON.stringify(history);
    const ctx = contextFor();
    const out = await createStrategy({ use: "tool-result-compaction", maxChars: 100 }).compact(history, ctx);
    const openai = out[2]!.content as string;
    expect(openai.startsWith("HEAD")).toBe(true);
    expect(openai.endsWith("TAIL")).toBe(true);
    expect(openai).toContain(`[… ${text.length - 100} chars truncated …]`);
    const block = (out[4]!.content as { content: string }[])[0]!.content;
    expect(block).toContain("chars truncated");
    expect(out[2]!.metadata?.window).toMatchObject({ truncated: { chars: text.length, parts: 1 } });
    expect(JSON.stringify(history)).toBe(before);
    expect(ctx.explain.entries.map((e) => [e.messageId, e.decision, e.strategy])).toEqual([
      ["res-c1-0", "truncated", "tool-result-compaction"],
      ["res-t1", "truncated", "tool-result-compaction"],
    ]);
  });

  it("leaves error results and critical messages untouched", async () => {
    const critical: Message = { role: "tool", tool_call_id: "k_0", content: long, metadata: { id: "crit", critical: true } };
    const history = [user("q"), ...anthropicGroup("t1", long, true), { ...openaiGroup("k", "x")[0]! }, critical];
    const out = await createStrategy({ use: "tool-result-compaction" }).compact(history, contextFor());
    out.forEach((m, i) => expect(m).toBe(history[i]));
  });

  it("gives the same copy for the same stored message in every window (stable prefix)", async () => {
    const history = [user("q"), ...openaiGroup("c1", long)];
    const strategy = createStrategy({ use: "tool-result-compaction" });
    const a = await strategy.compact(history, contextFor());
    const b = await strategy.compact(history, contextFor());
    expect(a[2]).toBe(b[2]);
  });
});

describe("selective-tool-call", () => {
  const history = [system("s"), user("q"), ...openaiGroup("g1", "r"), assistant("t"), ...anthropicGroup("g2", "r"), ...openaiGroup("g3", "r", "r2"), user("q2"), ...openaiGroup("g4", "r")];

  it("drops whole old groups (call + every result) and keeps the last N; never splits a group", async () => {
    const out = await createStrategy({ use: "selective-tool-call", keepRecentGroups: 2, targetRatio: 1 }).compact(history, contextFor());
    const dropped = ["call-g1", "res-g1-0", "call-g2", "res-g2"];
    expect(ids(out)).toEqual(ids(history).filter((id) => !dropped.includes(String(id))));
  });

  it("keeps critical groups and moves its boundary in steps", async () => {
    const marked = history.map((m) => (m.metadata?.id === "call-g1" ? { ...m, metadata: { ...m.metadata, critical: true } } : m));
    const strategy = createStrategy({ use: "selective-tool-call", keepRecentGroups: 3, targetRatio: 0.7 });
    const out = await strategy.compact(marked, contextFor());
    // 3 non-critical groups ≤ 3: nothing dropped
    expect(out).toHaveLength(marked.length);
    const more = [...marked, ...openaiGroup("g5", "r")];
    const out2 = await strategy.compact(more, contextFor());
    // 4 > 3: down to ⌊0.7 × 3⌋ = 2 groups (g4, g5) + critical g1
    expect(ids(out2).filter((id) => String(id).startsWith("call-"))).toEqual(["call-g1", "call-g4", "call-g5"]);
    const out3 = await strategy.compact([...more, ...openaiGroup("g6", "r")], contextFor());
    // 3 after the boundary ≤ 3: the boundary stays, the prefix is shared
    expect(ids(out3).slice(0, out2.length)).toEqual(ids(out2));
  });
});

describe("sliding-window", () => {
  const turns = (n: number) => Array.from({ length: n }, (_, i) => [user(`q${i}`), assistant(`a${i}`)]).flat();

  it("keeps system + everything while under maxMessages", async () => {
    const history = [system("s"), ...turns(5)];
    const out = await createStrategy({ use: "sliding-window", maxMessages: 10 }).compact(history, contextFor());
    expect(out).toEqual(history);
  });

  it("cuts in steps: down to ⌊0.7·max⌋, then keeps the cut until the window exceeds max again", async () => {
    const strategy = createStrategy({ use: "sliding-window", maxMessages: 10 });
    const base = [system("s"), ...turns(6)];
    const first = await strategy.compact(base, contextFor());
    expect(first[0]!.role).toBe("system");
    expect(first.length - 1).toBe(8); // 12 > 10 → the last ⌊0.7 × 10⌋ = 7, starting at an answer, so its prompt is kept too
    let history = base;
    let previous = first;
    history = [...history, ...turns(1)];
    const next = await strategy.compact(history, contextFor());
    expect(ids(next).slice(0, previous.length)).toEqual(ids(previous)); // 9 after the cut ≤ 10: the cut stays
    previous = next;
    history = [...history, ...turns(1)];
    const jumped = await strategy.compact(history, contextFor());
    expect(jumped.length - 1).toBe(8); // 11 > 10: a new step
    expect(ids(jumped)[1]).not.toBe(ids(previous)[1]);
  });

  it("never starts inside a tool group, and keeps the prompt of the turn it cuts into", async () => {
    const history = [system("s"), user("only prompt"), ...openaiGroup("g1", "r1", "r2"), ...openaiGroup("g2", "r1", "r2"), ...openaiGroup("g3", "r1", "r2")];
    const out = await createStrategy({ use: "sliding-window", maxMessages: 5, targetRatio: 1 }).compact(history, contextFor());
    expect(ids(out)).toEqual([ids(history)[0], ids(history)[1], "call-g3", "res-g3-0", "res-g3-1"]);
  });
});

describe("truncation", () => {
  it("drops oldest until under maxMessages and maxChars", async () => {
    const history = [system("s"), user("a".repeat(50)), assistant("b".repeat(50)), user("c".repeat(50)), assistant("d".repeat(50))];
    const byCount = await createStrategy({ use: "truncation", maxMessages: 2 }).compact(history, contextFor());
    expect(ids(byCount)).toEqual(ids([history[0]!, history[3]!, history[4]!]));
    const byChars = await createStrategy({ use: "truncation", maxChars: 60 }).compact(history, contextFor());
    expect(byChars.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(ids(byChars)[1]).toBe(ids(history)[3]);
  });

  it("never drops critical messages", async () => {
    const critical = user("keep", { metadata: { id: "crit", critical: true } });
    const history = [critical, assistant("x"), user("y"), assistant("z")];
    const out = await createStrategy({ use: "truncation", maxMessages: 1 }).compact(history, contextFor());
    expect(out[0]).toBe(critical);
  });
});

describe("token-budget", () => {
  const history = [system("s"), user("q"), ...openaiGroup("g1", long), assistant("done"), user("q2"), ...openaiGroup("g2", long), assistant("ok")];

  it("does nothing when the history already fits", async () => {
    const out = await createStrategy({ use: "token-budget", budget: 100_000, strategies: [{ use: "truncation", maxMessages: 1 }] }).compact(history, contextFor());
    expect(out).toEqual(history);
  });

  it("applies children one at a time and stops at the first that makes it fit", async () => {
    const strategy = createStrategy({
      use: "token-budget",
      budget: 800,
      strategies: [{ use: "tool-result-compaction", maxChars: 200 }, { use: "truncation", maxMessages: 1 }],
    });
    const out = await strategy.compact(history, contextFor());
    expect(out).toHaveLength(history.length); // tool-result-compaction was enough; truncation never ran
    expect(JSON.stringify(out)).toContain("chars truncated");
  });

  it("without children: drops the oldest until it fits, groups whole", async () => {
    const ctx = contextFor();
    const out = await createStrategy({ use: "token-budget", budget: 3_000, targetRatio: 1 }).compact(history, ctx);
    expect(getTokenCounter("gpt-4o").countRequest([...out])).toBeLessThanOrEqual(3_000);
    expect(out[0]!.role).toBe("system");
    expect(ids(out)).toContain("res-g2-0");
    expect(ids(out)).not.toContain("call-g1");
  });

  it("sizes its limit from the model registry with triggerRatio", async () => {
    const strategy = createStrategy({ use: "token-budget", model: "gpt-4o" }) as unknown as { limit(b: number): number };
    expect(strategy.limit(1)).toBe(Math.floor(0.8 * 128_000));
  });
});
