import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import {
  decisionRuns,
  foldText,
  jsonForScript,
  messageViews,
  oneLine,
  reportHtml,
  sessionCharts,
  sessionRows,
  timeline,
  tokenBar,
  turnWindow,
  type AnalyzedTurn,
  type InspectorReport,
  type InspectorSession,
} from "@amplifier-ts/inspector";

const at = (s: number) => new Date(Date.UTC(2026, 10, 2, 9, 0, s)).toISOString();

const stored: Message[] = [
  { role: "system", content: "be brief", metadata: { id: "s", timestamp: at(0) } },
  { role: "user", content: "list files", metadata: { id: "u1", timestamp: at(10) } },
  { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: '{"dir":"."}' } }], metadata: { id: "a1", timestamp: at(20) } },
  { role: "tool", tool_call_id: "c1", content: "a.ts\nb.ts", metadata: { id: "t1", timestamp: at(30) } },
  { role: "system", content: [{ type: "text", text: "note" }], metadata: { id: "n1", scope: "turn", timestamp: at(35) } },
  { role: "assistant", content: [{ type: "thinking", thinking: "hmm" }, { type: "text", text: "two files" }, { type: "tool_use", id: "c2", name: "cat", input: { f: "a.ts" } }], metadata: { id: "a2", timestamp: at(40) } },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "c2", content: "export {}" }, { type: "image", source: { type: "url", url: "https://example.invalid/x.png" } }], metadata: { id: "r2", timestamp: at(50), ephemeral: true } },
  { role: "assistant", content: "done", metadata: { id: "a3", timestamp: at(60) } },
];

function turn(extra: Partial<AnalyzedTurn> & Pick<AnalyzedTurn, "turn" | "messageIndex">): AnalyzedTurn {
  return {
    historyMessages: extra.messageIndex,
    historyTokens: 500,
    windowMessages: 3,
    windowTokens: 300,
    budget: 1_000,
    prefixKept: 1,
    instructionTokens: 20,
    historyKeptTokens: 280,
    toolTokens: 0,
    ...extra,
  };
}

describe("messageViews: stored messages as the page shows them", () => {
  const views = messageViews(stored, stored.map((_, i) => 10 + i));
  it("joins text, thinking and tool result text in content order, as plain text", () => {
    expect(views[5]!.text).toBe("[thinking] hmm\ntwo files");
    expect(views[6]!.text).toBe("export {}");
    expect(views[3]!.text).toBe("a.ts\nb.ts");
  });
  it("lists tool calls of both conventions with their arguments as JSON text, and the calls a message answers", () => {
    expect(views[2]!.toolCalls).toEqual([{ id: "c1", name: "ls", arguments: '{"dir":"."}' }]);
    expect(views[5]!.toolCalls).toEqual([{ id: "c2", name: "cat", arguments: '{"f":"a.ts"}' }]);
    expect(views[3]!.resultFor).toEqual(["c1"]);
    expect(views[6]!.resultFor).toEqual(["c2"]);
  });
  it("marks turn notes, ephemeral messages and images, and carries ids, times and token counts", () => {
    expect(views[4]!.note).toBe(true);
    expect(views[6]!.ephemeral).toBe(true);
    expect(views[6]!.images).toBe(1);
    expect(views[1]).toMatchObject({ index: 1, id: "u1", role: "user", timestamp: at(10), tokens: 11 });
  });
});

describe("foldText and oneLine", () => {
  it("folds at the character limit or the line limit, whichever comes first, and says how much is hidden", () => {
    expect(foldText("short")).toEqual({ preview: "short", full: "short", folded: false, hiddenChars: 0 });
    const long = "x".repeat(1_000);
    expect(foldText(long, 400)).toMatchObject({ preview: "x".repeat(400), folded: true, hiddenChars: 600 });
    const lines = "1\n2\n3\n4\n5\n6";
    expect(foldText(lines, 400, 2)).toMatchObject({ preview: "1\n2", folded: true, hiddenChars: 8 });
  });
  it("folds only when it hides a meaningful amount: never two characters behind a 'show all' (issue 24 item 10)", () => {
    expect(foldText(`${"x".repeat(400)}ab`)).toEqual({ preview: `${"x".repeat(400)}ab`, full: `${"x".repeat(400)}ab`, folded: false, hiddenChars: 0 });
    expect(foldText("1\n2\n3\n4", 400, 2).folded).toBe(false);
    expect(foldText("x".repeat(599)).folded).toBe(false);
    expect(foldText("x".repeat(600))).toMatchObject({ folded: true, hiddenChars: 200 });
    expect(foldText(`${"y".repeat(390)}\n\n\n`).folded).toBe(false);
    expect(foldText("a\nb\nc\nd\ne\nf\ng\nh\ni").folded).toBe(true);
  });
  it("never cuts a surrogate pair", () => {
    const text = `${"a".repeat(9)}😀${"tail".repeat(60)}`;
    const folded = foldText(text, 10);
    expect(folded.preview).toBe("a".repeat(9));
    expect(oneLine(`${"b".repeat(8)}😀 and more`, 10)).toBe(`${"b".repeat(8)}…`);
  });
  it("oneLine collapses whitespace", () => {
    expect(oneLine("a\n\n  b\tc")).toBe("a b c");
  });
});

describe("sessionRows: the session list", () => {
  const sessions = [
    { source: "jsonl", sessionId: "old", messages: 3, events: 0, lastActivity: at(1), live: false },
    { source: "postgres", sessionId: "new", messages: 5, events: 2, lastActivity: at(9), live: false },
    { source: "live", sessionId: "running", messages: 1, events: 0, live: true },
  ];
  it("puts live sessions first, then the most recently active", () => {
    expect(sessionRows(sessions).map((r) => r.key)).toEqual(["live/running", "postgres/new", "jsonl/old"]);
  });
  it("filters on every word, over id and source, case-insensitively", () => {
    expect(sessionRows(sessions, "POST").map((r) => r.sessionId)).toEqual(["new"]);
    expect(sessionRows(sessions, "jsonl ol").map((r) => r.sessionId)).toEqual(["old"]);
    expect(sessionRows(sessions, "nothing")).toEqual([]);
  });
  it("labels times in UTC and unknown times with a dash", () => {
    const rows = sessionRows(sessions);
    expect(rows.find((r) => r.sessionId === "old")!.lastActivityLabel).toBe("2026-11-02 09:00:01 UTC");
    expect(rows.find((r) => r.sessionId === "running")!.lastActivityLabel).toBe("—");
  });
});

describe("timeline: messages and memory events on one line", () => {
  const session: Pick<InspectorSession, "messages" | "events" | "analysis"> = {
    messages: messageViews(stored),
    events: [
      { event_id: "e-late", timestamp: at(99), event_type: "tool_result", content: { ok: true } },
      { event_id: "e-early", timestamp: at(15), event_type: "user_message", content: "hello" },
    ],
    analysis: { module: "m", model: "gpt-4o", turns: [turn({ turn: 1, messageIndex: 2 }), turn({ turn: 2, messageIndex: 5 })] },
  };
  const entries = timeline(session);
  it("places each event before the first message stamped after it, the rest at the end", () => {
    expect(entries.map((e) => (e.kind === "event" ? e.eventType : e.message.id))).toEqual(["s", "u1", "user_message", "a1", "t1", "n1", "a2", "r2", "a3", "tool_result"]);
  });
  it("names the call a tool result answers, links assistant messages to their turn, and marks notes and ephemeral messages", () => {
    const byId = (id: string) => entries.find((e) => e.kind === "message" && e.message.id === id)!;
    expect(byId("t1")).toMatchObject({ answers: [{ id: "c1", call: { name: "ls" } }] });
    expect(byId("r2")).toMatchObject({ answers: [{ id: "c2", call: { name: "cat" } }], marks: ["ephemeral", "1 image"] });
    expect(byId("n1")).toMatchObject({ marks: ["turn note"] });
    expect(byId("a1")).toMatchObject({ turn: 1 });
    expect(byId("a2")).toMatchObject({ turn: 2 });
    expect(byId("a3")).not.toHaveProperty("turn");
  });
  it("shows structured event content as indented JSON", () => {
    expect(entries.at(-1)).toMatchObject({ kind: "event", body: { full: '{\n  "ok": true\n}' } });
  });
});

describe("decisionRuns: a turn's explanation as runs over session positions", () => {
  const positions = new Map([["s", 0], ["u1", 1], ["a1", 2], ["t1", 3], ["n1", 4], ["a2", 5]]);
  const runs = decisionRuns(
    [
      { id: "s", decision: "kept", strategy: "window", reason: "instruction" },
      { id: "u1", decision: "dropped", strategy: "window", reason: "before cut" },
      { id: "a1", decision: "dropped", strategy: "window", reason: "before cut" },
      { id: "t1", decision: "kept", strategy: "recall", reason: "matches the prompt" },
      { id: "ghost", decision: "kept", strategy: "window", reason: "not in the session" },
      { id: "n1", decision: "summarized", strategy: "summarize", reason: "covered by a summary" },
      { id: "a2", decision: "weird", strategy: "window", reason: "?" },
    ],
    (id) => positions.get(id),
  );
  it("merges neighbours with one decision, strategy and reason; a kept by another strategy than the window is recalled", () => {
    expect(runs).toEqual([
      { from: 0, to: 1, decision: "kept", strategy: "window", reason: "instruction" },
      { from: 1, to: 3, decision: "dropped", strategy: "window", reason: "before cut" },
      { from: 3, to: 4, decision: "recalled", strategy: "recall", reason: "matches the prompt" },
      { from: 4, to: 5, decision: "summarized", strategy: "summarize", reason: "covered by a summary" },
      { from: 5, to: 6, decision: "dropped", strategy: "window", reason: "?" },
    ]);
  });
});

describe("turnWindow: one turn's window, message by message", () => {
  const messages = messageViews(stored, [5, 7, 9, 11, 13, 15, 17, 19]);
  const t = turn({
    turn: 3,
    messageIndex: 7,
    decisions: [
      { from: 0, to: 1, decision: "kept", strategy: "window", reason: "instruction" },
      { from: 1, to: 3, decision: "dropped", strategy: "window", reason: "older than the cut" },
      { from: 3, to: 4, decision: "truncated", strategy: "window", reason: "tool result cut" },
      { from: 4, to: 6, decision: "kept", strategy: "window", reason: "in window" },
    ],
    truncatedTokens: { 3: 4 },
  });
  const view = turnWindow({ messages, analysis: { module: "m", model: "gpt-4o", turns: [t] } }, 3)!;
  it("gives every message before the call its decision, strategy, reason and tokens in this window", () => {
    expect(view.rows.map((r) => [r.index, r.decision, r.reason, r.tokens])).toEqual([
      [0, "kept", "instruction", 5],
      [1, "dropped", "older than the cut", undefined],
      [2, "dropped", "older than the cut", undefined],
      [3, "truncated", "tool result cut", 4],
      [4, "kept", "in window", 13],
      [5, "kept", "in window", 15],
      [6, "not stored", "not in the stored history (ephemeral messages are never stored)", undefined],
    ]);
    expect(view.counts).toEqual({ kept: 3, truncated: 1, summarized: 0, recalled: 0, dropped: 2 });
    // 3 windowMessages (the fixture's) < kept + truncated: nothing synthetic.
    expect(view.syntheticMessages).toBe(0);
    const withSummary = turnWindow({ messages, analysis: { module: "m", model: "x", turns: [{ ...t, windowMessages: 6 }] } }, 3)!;
    expect(withSummary.syntheticMessages).toBe(2);
    expect(view.rows[2]!.preview).toBe('ls({"dir":"."})');
  });
  it("is undefined for a turn the session does not have, and says when the module offers no explain", () => {
    expect(turnWindow({ messages, analysis: { module: "m", model: "x", turns: [t] } }, 4)).toBeUndefined();
    const unexplained = turnWindow({ messages, analysis: { module: "m", model: "x", turns: [turn({ turn: 1, messageIndex: 2 })] } }, 1)!;
    expect(unexplained.explained).toBe(false);
    expect(unexplained.rows[0]!.reason).toBe("the context module offers no explain");
  });
});

describe("tokenBar: instructions, history kept, tool definitions, free budget", () => {
  it("splits the budget", () => {
    expect(tokenBar({ budget: 1_000, windowTokens: 600, instructionTokens: 100, historyKeptTokens: 400, toolTokens: 100 })).toEqual([
      { key: "instructions", label: "instructions", tokens: 100, share: 0.1 },
      { key: "history", label: "history kept", tokens: 400, share: 0.4 },
      { key: "tools", label: "tool definitions", tokens: 100, share: 0.1 },
      { key: "free", label: "free budget", tokens: 400, share: 0.4 },
    ]);
  });
  it("shows what is over the budget instead of free space, the bar scaled to the window", () => {
    const bar = tokenBar({ budget: 1_000, windowTokens: 1_250, instructionTokens: 250, historyKeptTokens: 1_000, toolTokens: 0 });
    expect(bar.at(-1)).toEqual({ key: "over", label: "over budget", tokens: 250, share: 0.2 });
    expect(bar[1]!.share).toBe(0.8);
  });
});

describe("sessionCharts: series per turn", () => {
  it("draws history, window and budget tokens and the prefix kept in percent, without a cache series when no turn has usage", () => {
    const charts = sessionCharts({ module: "m", model: "x", turns: [turn({ turn: 1, messageIndex: 2 }), turn({ turn: 2, messageIndex: 5, prefixKept: 0.8123, windowTokens: 400 })] });
    expect(charts).toEqual({ turns: [1, 2], historyTokens: [500, 500], windowTokens: [300, 400], budget: [1_000, 1_000], windowSource: "simulation", prefixKept: [100, 81.2] });
  });
  it("gives the cached share where usage is known, null elsewhere, and says where it comes from", () => {
    const charts = sessionCharts({
      module: "m",
      model: "x",
      turns: [turn({ turn: 1, messageIndex: 2 }), turn({ turn: 2, messageIndex: 5, cache: { inputTokens: 400, cachedTokens: 300, billed: true } })],
    });
    expect(charts.cachedShare).toEqual([null, 75]);
    expect(charts.cacheSource).toBe("billed");
    expect(sessionCharts(undefined).turns).toEqual([]);
  });
});

describe("the report's HTML", () => {
  const hostile = '</script><script>alert(1)</script><!-- <img src=x onerror=alert(2)> \u2028 & "';
  const report: InspectorReport = {
    title: "<b>title</b>",
    generatedAt: at(0),
    session: { source: "transcript", sessionId: "s", live: false, messages: messageViews([{ role: "user", content: hostile, metadata: { id: "x" } }]), events: [] },
  };
  const assets = { js: "document.getElementById('app').textContent='ok';", css: "body{color:red}" };
  const html = reportHtml(report, assets);
  it("embeds the data as JSON no message can break out of, and reads back exactly", () => {
    const json = jsonForScript(report);
    expect(json).not.toMatch(/[<>\u2028]/);
    expect(JSON.parse(json)).toEqual(report);
    const element = /<script type="application\/json" id="inspector-report">([^]*?)<\/script>/.exec(html)!;
    expect(JSON.parse(element[1]!)).toEqual(report);
    expect(html.match(/<script/g)).toHaveLength(2);
  });
  it("allows exactly its inline script and style by hash, and escapes the title", () => {
    const hash = (text: string) => `sha256-${createHash("sha256").update(text).digest("base64")}`;
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!;
    expect(csp).toContain(`script-src '${hash(assets.js)}'`);
    expect(csp).toContain(`style-src '${hash(assets.css)}'`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(html).toContain("<title>&lt;b&gt;title&lt;/b&gt;</title>");
  });
  it("refuses a bundle that would close its own script element", () => {
    expect(() => reportHtml(report, { js: "x='</script>'", css: "" })).toThrow(/INSPECTOR\/ASSETS_MISSING/);
  });
});
