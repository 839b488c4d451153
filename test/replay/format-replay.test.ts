import { describe, expect, it } from "vitest";
import {
  explainRows,
  formatDuration,
  formatExplain,
  formatInt,
  formatMs,
  formatPercent,
  formatReplay,
  formatReplayJson,
  selectRows,
} from "../../src/replay/format-replay.js";
import { createProgressBar, renderProgressLine } from "../../src/replay/progress-bar.js";
import type { ReplayResult, ReplayTurn } from "../../src/replay/run-replay.js";

const turn = (n: number, over: Partial<ReplayTurn> = {}): ReplayTurn => ({
  turn: n,
  messageIndex: n * 2,
  historyMessages: n * 2,
  historyTokens: n * 1000,
  windowMessages: n,
  windowTokens: n * 500,
  kept: n,
  removed: n,
  truncated: 0,
  prefixKept: 1,
  ms: 0.5,
  ...over,
});

const turns = (count: number) => Array.from({ length: count }, (_, i) => turn(i + 1));

describe("numbers", () => {
  it("thousands separators, one decimal for shares, two for ms", () => {
    expect(formatInt(1234567)).toBe("1,234,567");
    expect(formatInt(999.6)).toBe("1,000");
    expect(formatPercent(0.97349)).toBe("97.3%");
    expect(formatPercent(1)).toBe("100.0%");
    expect(formatPercent(Number.NaN)).toBe("-");
    expect(formatMs(1234.567)).toBe("1,234.57");
    expect(formatMs(0.1)).toBe("0.10");
    expect(formatDuration(840.123)).toBe("840.12 ms");
    expect(formatDuration(12_345)).toBe("12.35 s");
  });
});

describe("selectRows", () => {
  it("all rows up to 60 turns", () => {
    expect(selectRows(turns(60))).toHaveLength(60);
  });
  it("above 60: every 10th and the last", () => {
    expect(selectRows(turns(323)).map((t) => t.turn)).toEqual([...Array.from({ length: 32 }, (_, i) => (i + 1) * 10), 323]);
    expect(selectRows(turns(70)).map((t) => t.turn)).toEqual([10, 20, 30, 40, 50, 60, 70]);
  });
  it("--every N, plus the explained turn", () => {
    expect(selectRows(turns(10), 4, 3).map((t) => t.turn)).toEqual([3, 4, 8, 10]);
    expect(selectRows(turns(5), 1)).toHaveLength(5);
  });
});

describe("explain", () => {
  it("reads { report: { decisions } }, { decisions } and bare arrays", () => {
    const decisions = [{ id: "a", decision: "kept", reason: "system" }];
    for (const shape of [{ report: { decisions } }, { decisions }, decisions]) {
      expect(explainRows(shape)).toEqual([{ index: "0", id: "a", role: "-", decision: "kept", reason: "system", tokens: "-", strategy: "-" }]);
    }
    expect(explainRows({ report: {} })).toBeUndefined();
    expect(explainRows(undefined)).toBeUndefined();
  });

  it("renders what is there: ids from the message, token changes, strategies, long reasons cut", () => {
    const rows = explainRows([
      { index: 3, message: { role: "tool", metadata: { id: "m4" } }, decision: "truncated", tokens: { before: 12000, after: 900 }, strategy: "window", reason: "x".repeat(150) },
      "dropped",
      { messageId: "syn-1", role: "tool", action: "synthetic", reason: "interrupted\ncall", tokenCount: 12 },
    ])!;
    expect(rows[0]).toMatchObject({ index: "3", id: "m4", role: "tool", decision: "truncated", tokens: "12,000 → 900", strategy: "window" });
    expect(rows[0]!.reason).toHaveLength(100);
    expect(rows[0]!.reason.endsWith("…")).toBe(true);
    expect(rows[1]).toMatchObject({ index: "1", id: "-", decision: "dropped" });
    expect(rows[2]).toMatchObject({ id: "syn-1", decision: "synthetic", reason: "interrupted call", tokens: "12" });
  });

  it("a table with a tally; a STRATEGY column only when some entry names one", () => {
    const text = formatExplain(
      { report: { decisions: [
        { index: 0, id: "s", role: "system", decision: "kept", reason: "system message", tokens: 40 },
        { index: 1, id: "u", role: "user", decision: "dropped", reason: "before the cut", tokens: 1234 },
        { index: 2, id: "a", role: "assistant", decision: "kept", reason: "after the cut", tokens: 7 },
      ] } },
      { turn: turn(2), turnNumber: 2, module: "context-simple", supported: true },
    );
    expect(text).toBe(
      [
        "Explain turn 2 (before message 5: 4 stored messages, window of 2 messages, 1,000 tokens)",
        "  kept 2, dropped 1",
        "",
        "INDEX  ID  ROLE       DECISION  TOKENS  REASON",
        "    0  s   system     kept          40  system message",
        "    1  u   user       dropped    1,234  before the cut",
        "    2  a   assistant  kept           7  after the cut",
        "",
      ].join("\n"),
    );
  });

  it("no explain, or a report without decisions: said in words", () => {
    const opts = { turn: undefined, turnNumber: 4, module: "m" };
    expect(formatExplain(undefined, { ...opts, supported: false })).toContain('module "m" offers no explain: it has no explainLastWindow()');
    expect(formatExplain(undefined, { ...opts, supported: true })).toContain('module "m" returned nothing from explainLastWindow()');
    expect(formatExplain({ report: { budget: 1 }, model: "x" }, { ...opts, supported: true })).toContain("a report without per-message decisions (keys: report, model)");
  });
});

describe("formatReplay / formatReplayJson", () => {
  const result: ReplayResult = {
    summary: {
      transcript: "/abs/t.jsonl",
      module: "context-simple",
      model: "gpt-4o",
      budget: 32000,
      messages: 5,
      turns: 2,
      totalHistoryTokens: 3000,
      totalWindowTokens: 1500,
      savedShare: 0.5,
      maxWindowTokens: 1000,
      meanPrefixKept: 0.9734,
      totalMs: 1.25,
      p50Ms: 0.5,
      p99Ms: 0.75,
    },
    turns: [turn(1), turn(2, { prefixKept: 0.5, ms: 1234.5 })],
  };

  it("table, then summary", () => {
    expect(formatReplay(result, { transcript: "t.jsonl", budgetSource: "--budget" })).toBe(
      [
        "TURN  HISTORY MSGS  HISTORY TOKENS  WINDOW MSGS  WINDOW TOKENS  KEPT  REMOVED  TRUNCATED  PREFIX KEPT        MS",
        "   1             2           1,000            1            500     1        1          0       100.0%      0.50",
        "   2             4           2,000            2          1,000     2        2          0        50.0%  1,234.50",
        "",
        "Summary",
        "  transcript        t.jsonl",
        "  messages          5",
        "  turns             2 (model calls: one before each assistant message)",
        "  module            context-simple",
        "  model             gpt-4o",
        "  budget            32,000 tokens (--budget)",
        "  history tokens    3,000 summed over turns (the whole history every time)",
        "  window tokens     1,500 summed over turns, 50.0% saved",
        "  max window        1,000 tokens",
        "  mean prefix kept  97.3% of the previous window (token-weighted)",
        "  time per turn     p50 0.50 ms, p99 0.75 ms",
        "  total time        1.25 ms in getMessagesForRequest",
        "",
      ].join("\n"),
    );
  });

  it("no turns: said so, summary still printed", () => {
    const text = formatReplay({ ...result, turns: [], summary: { ...result.summary, turns: 0 } });
    expect(text.startsWith("No turns: the transcript has no assistant message")).toBe(true);
    expect(text).toContain("\nSummary\n");
  });

  it("JSON: { summary, turns }, explain only when asked, null when missing, JSON-safe", () => {
    expect(Object.keys(JSON.parse(formatReplayJson(result)))).toEqual(["summary", "turns"]);
    expect(JSON.parse(formatReplayJson(result, { explainTurn: 1 })).explain).toBeNull();
    const cyclic: Record<string, unknown> = { ids: new Set(["a"]), byId: new Map([["a", 1n]]) };
    cyclic.self = cyclic;
    expect(JSON.parse(formatReplayJson({ ...result, explain: cyclic }, { explainTurn: 1 })).explain).toEqual({ ids: ["a"], byId: { a: "1" }, self: "[Circular]" });
  });
});

describe("progress bar", () => {
  const sink = (isTTY: boolean) => {
    const out = { text: "", isTTY, columns: 60, write: (chunk: string) => (out.text += chunk) };
    return out;
  };

  it("a no-op when the stream is not a terminal", () => {
    const stream = sink(false);
    const bar = createProgressBar(stream, 100, { delayMs: 0, now: () => 1000 });
    bar.update(50);
    bar.clear();
    expect(stream.text).toBe("");
  });

  it("waits delayMs, redraws at most every intervalMs, always draws the end, clears once", () => {
    let now = 0;
    const stream = sink(true);
    const bar = createProgressBar(stream, 10, { delayMs: 100, intervalMs: 50, now: () => now });
    bar.update(1);
    expect(stream.text).toBe("");
    now = 100;
    bar.update(2);
    now = 120;
    bar.update(3); // too soon
    now = 160;
    bar.update(4);
    now = 161;
    bar.update(10); // the end is always drawn
    const frames = stream.text.split("\r").filter(Boolean);
    expect(frames).toHaveLength(3);
    expect(frames[2]).toBe(`${renderProgressLine("replay", 10, 10, 161, 60)}\u001b[K`);
    bar.clear();
    bar.clear();
    expect(stream.text.endsWith("\r\u001b[K")).toBe(true);
    expect(stream.text.split("\r\u001b[K").length).toBe(2);
  });

  it("a terminal reporting 0 columns (some pseudo-terminals) gets an 80-column line, not an empty one", () => {
    const stream = { ...sink(true), columns: 0 };
    let text = "";
    stream.write = (chunk: string) => (text += chunk);
    createProgressBar(stream, 4, { delayMs: 0, now: () => 10 }).update(4);
    expect(text).toBe(`\r${renderProgressLine("replay", 4, 4, 0, 80)}\u001b[K`);
  });

  it("fits the terminal width", () => {
    expect(renderProgressLine("replay", 5, 10, 1500, 80)).toBe(`replay  [${"█".repeat(20)}${"░".repeat(20)}]  5/10 turns  50%  1.5s`);
    for (const columns of [20, 40, 60, 200]) expect(renderProgressLine("replay", 12345, 99999, 1, columns).length).toBeLessThan(columns);
  });
});
