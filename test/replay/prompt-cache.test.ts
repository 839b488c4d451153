import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/index.js";
import { tailWindow } from "../../src/replay/cache-report.js";
import { anthropicBreakpoints, PromptCacheSimulator, turnCost, type CacheSegment } from "../../src/replay/prompt-cache.js";

/** Segments from a compact spec: "s:600" = instruction of 600 tokens keyed "s", "u1:300" user, "a1:200" assistant. */
const req = (...spec: string[]): CacheSegment[] =>
  spec.map((item) => {
    const [key, tokens] = item.split(":") as [string, string];
    const side = key.startsWith("s") ? "instruction" : key.startsWith("a") ? "assistant" : "user";
    return { key, tokens: Number(tokens), side };
  });

describe("OpenAI: automatic prefix cache from 1,024 tokens in 128-token steps", () => {
  it("a growing conversation reads the previous request's prefix, floored to 1,024 + 128·k", () => {
    const cache = new PromptCacheSimulator("openai");
    expect(cache.next(req("s:600", "u1:700"))).toEqual({ inputTokens: 1_300, cachedTokens: 0, writeTokens: 0 }); // first request: nothing cached
    // Prefix s+u1 = 1,300 shared → 1,024 + 2·128 = 1,280.
    expect(cache.next(req("s:600", "u1:700", "a1:100", "u2:100"))).toEqual({ inputTokens: 1_500, cachedTokens: 1_280, writeTokens: 0 });
    // Prefix s+u1+a1+u2 = 1,500 shared → 1,024 + 3·128 = 1,408.
    expect(cache.next(req("s:600", "u1:700", "a1:100", "u2:100", "a2:50", "u3:50")).cachedTokens).toBe(1_408);
  });

  it("below the 1,024-token floor nothing is cached, even when the whole prefix repeats", () => {
    const cache = new PromptCacheSimulator("openai");
    cache.next(req("s:500", "u1:400"));
    expect(cache.next(req("s:500", "u1:400", "a1:10", "u2:10")).cachedTokens).toBe(0); // shared 900 < 1,024
    expect(cache.next(req("s:500", "u1:400", "a1:10", "u2:10", "a2:200")).cachedTokens).toBe(0); // shared 920 < 1,024
    // Shared 1,120: 1,024 + ⌊96/128⌋·128 = 1,024.
    expect(cache.next(req("s:500", "u1:400", "a1:10", "u2:10", "a2:200", "u3:5")).cachedTokens).toBe(1_024);
  });

  it("a cut that moves breaks the prefix right after the instructions; a cut that stays keeps it", () => {
    const cache = new PromptCacheSimulator("openai");
    cache.next(req("s:1100", "u1:500", "a1:500", "u2:500"));
    // Dropping u1 (the cut moved): only the instructions are shared: 1,100 → 1,024.
    expect(cache.next(req("s:1100", "a1:500", "u2:500", "a2:100", "u3:100")).cachedTokens).toBe(1_024);
    // The same cut again: s+a1+u2+a2+u3 = 2,300 shared → 1,024 + 9·128 = 2,176.
    expect(cache.next(req("s:1100", "a1:500", "u2:500", "a2:100", "u3:100", "a3:10", "u4:10")).cachedTokens).toBe(2_176);
    // Any earlier request counts, not only the last: back to the first window's prefix (2,600 → 2,560).
    expect(cache.next(req("s:1100", "u1:500", "a1:500", "u2:500", "x:1")).cachedTokens).toBe(2_560);
  });

  it("a changed message breaks the prefix at its start", () => {
    const cache = new PromptCacheSimulator("openai");
    cache.next(req("s:2000", "u1:2000"));
    expect(cache.next(req("s:2000", "u1*:2000")).cachedTokens).toBe(1_920); // 1,024 + 7·128
  });
});

describe("Anthropic: breakpoints where toAnthropic puts them, reads at or up to 20 blocks before one", () => {
  it("breakpoints: the last instruction, the last user message before the final turn, the final message", () => {
    expect(anthropicBreakpoints(req("s:1", "s2:1", "u1:1", "a1:1", "u2:1", "a2:1", "u3:1"))).toEqual([1, 4, 6]);
    // The final turn merges consecutive user-side messages (a tool result and a user message).
    expect(anthropicBreakpoints(req("s:1", "u1:1", "a1:1", "u2:1", "u3:1"))).toEqual([0, 1, 4]);
    expect(anthropicBreakpoints(req("u1:1"))).toEqual([0]);
  });

  it("writes the prefix up to the last breakpoint, then reads it and writes only the growth", () => {
    const cache = new PromptCacheSimulator("anthropic");
    // First request: nothing to read; writes s (1,200, a breakpoint ≥ 1,024) and up to u1 (1,500).
    expect(cache.next(req("s:1200", "u1:300"))).toEqual({ inputTokens: 1_500, cachedTokens: 0, writeTokens: 1_500 });
    // Next: breakpoints s, u1 (the user message before the final turn), u2. Reads 1,500 at u1, writes 1,500 → 1,700.
    expect(cache.next(req("s:1200", "u1:300", "a1:100", "u2:100"))).toEqual({ inputTokens: 1_700, cachedTokens: 1_500, writeTokens: 200 });
  });

  it("a breakpoint prefix under the minimum is neither written nor read", () => {
    const cache = new PromptCacheSimulator("anthropic", { minimumTokens: 2_048 });
    expect(cache.next(req("s:1000", "u1:500"))).toEqual({ inputTokens: 1_500, cachedTokens: 0, writeTokens: 0 });
    expect(cache.next(req("s:1000", "u1:500", "a1:300", "u2:300"))).toEqual({ inputTokens: 2_100, cachedTokens: 0, writeTokens: 2_100 });
    expect(cache.next(req("s:1000", "u1:500", "a1:300", "u2:300", "a2:10", "u3:10")).cachedTokens).toBe(2_100);
  });

  it("an earlier breakpoint more than 20 blocks behind every breakpoint is not found", () => {
    const cache = new PromptCacheSimulator("anthropic");
    const turns = Array.from({ length: 12 }, (_, i) => [`a${i}:10`, `u${i + 1}:10`]).flat();
    cache.next(req("s:1100", "u0:10"));
    // s is still a breakpoint (read 1,100); u0's prefix is 24 blocks before the next user-side breakpoint.
    const turn = cache.next(req("s:1100", "u0:10", ...turns));
    expect(turn.cachedTokens).toBe(1_100);
  });
});

describe("cost and the naive tail window", () => {
  it("prices uncached, cached, written and output tokens per million", () => {
    const prices = { input: 3, cachedInput: 0.3, output: 15, cacheWrite: 3.75 };
    // 1,000 uncached × 3 + 2,000 cached × 0.3 + 500 written × 3.75 + 100 output × 15, per million.
    expect(turnCost({ inputTokens: 3_500, cachedTokens: 2_000, writeTokens: 500 }, 100, prices)).toBeCloseTo((3_000 + 600 + 1_875 + 1_500) / 1e6, 12);
  });

  it("the tail window keeps every instruction and the newest messages that fit", () => {
    const counter = { replyPriming: 3, countMessage: (m: Message) => (typeof m.content === "string" ? m.content.length : 0) };
    const m = (role: Message["role"], content: string): Message => ({ role, content });
    const history = [m("system", "rules"), m("user", "aaaaaaaaaa"), m("assistant", "bbbbb"), m("user", "ccc")];
    // Budget 20 − priming 3 − "rules" 5 = 12 left: "ccc" (3) and "bbbbb" (5) fit, the 10-token user message does not.
    expect(tailWindow(history, 20, counter).map((x) => x.content)).toEqual(["rules", "bbbbb", "ccc"]);
  });
});
