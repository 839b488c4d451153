import { describe, expect, it } from "vitest";
import type { Message, WindowRecord } from "@amplifier-ts/contracts";
import type { MemoryEventJson } from "@amplifier-ts/contracts";
import { messageViews, recordedWindows, sessionCharts, timeline, turnWindow, type AnalyzedTurn, type InspectorSession } from "@amplifier-ts/inspector";

/**
 * Issue 24 items 8-10 in the view models: the turn view shows what was SENT (the records) apart
 * from the simulation, lists the window's messages first and folds the runs left out, words the
 * "by" column for the user; the timeline shows a tool call once.
 */
const at = (s: number) => new Date(Date.UTC(2026, 10, 2, 9, 0, s)).toISOString();

/** A long session: a system message, then `turns` user/assistant pairs. */
function longSession(turns: number): Message[] {
  const out: Message[] = [{ role: "system", content: "be brief", metadata: { id: "s", timestamp: at(0) } }];
  for (let i = 0; i < turns; i++) {
    out.push({ role: "user", content: `q${i}`, metadata: { id: `u${i}`, timestamp: at(1) } });
    out.push({ role: "assistant", content: `a${i}`, metadata: { id: `a${i}`, timestamp: at(2) } });
  }
  return out;
}

function record(history: number, lastId: string, runs: WindowRecord["runs"], extra: Partial<WindowRecord> = {}): WindowRecord {
  return { at: at(5), history, lastId, model: "gpt-4o-mini", encoding: "o200k_base", budget: 14_000, windowMessages: 37, windowTokens: 13_400, historyTokens: 90_000, instructionTokens: 20, toolTokens: 310, tools: [{ name: "read_file", tokens: 100 }, { name: "write_file", tokens: 110 }, { name: "search", tokens: 100 }], strategies: ["window"], runs, ...extra };
}

describe("recordedWindows: records lined up with the session's turns", () => {
  const messages = longSession(3);
  it("gives each assistant message the record built over the messages before it, and skips a record of another history", () => {
    const records = [
      record(2, "u0", [[0, 2, "kept", "window", "in-window"]]),
      record(4, "u1", [[0, 4, "kept", "window", "in-window"]], { budget: 1 }),
      record(4, "u1", [[0, 4, "kept", "window", "in-window"]]),
      record(6, "not-u2", [[0, 6, "kept", "window", "in-window"]]),
    ];
    const recorded = recordedWindows(messages, records);
    expect(recorded.map((r) => [r.turn, r.messageIndex, r.budget])).toEqual([
      [1, 2, 14_000],
      [2, 4, 14_000],
    ]);
    expect(recorded[0]).toMatchObject({ model: "gpt-4o-mini", toolTokens: 310, historyKeptTokens: 13_400 - 20 - 310, tools: [{ name: "read_file" }, { name: "write_file" }, { name: "search" }] });
  });
});

describe("turnWindow: what was sent, kept messages first, dropped runs folded, the user's words", () => {
  // Turn 700 of the issue: 1,861 stored messages before the call, the window keeps the system
  // message and the last 36; everything between was dropped over budget.
  const messages = longSession(931);
  const turn = 700;
  const index = 2 * turn;
  const runs: WindowRecord["runs"] = [
    [0, 1, "kept", "window", "instruction"],
    [1, index - 36, "dropped", "window", "before-cut"],
    [index - 36, index, "kept", "window", "in-window"],
  ];
  const session: Pick<InspectorSession, "messages" | "analysis" | "recorded"> = { messages: messageViews(messages), recorded: recordedWindows(messages, [record(index, `u${turn - 1}`, runs)]) };
  const view = turnWindow(session, turn, "sent")!;
  it("is the record: budget, model and tools sent", () => {
    expect(view.origin).toBe("sent");
    expect(view.recorded).toMatchObject({ budget: 14_000, model: "gpt-4o-mini", tools: [{ name: "read_file" }, { name: "write_file" }, { name: "search" }] });
    expect(view.bar.find((s) => s.key === "tools")!.tokens).toBe(310);
  });
  it("lists the 37 window messages first and folds the 1,363 dropped ones into one run", () => {
    expect(view.inWindow).toHaveLength(37);
    expect(view.inWindow[0]!.index).toBe(0);
    expect(view.folds).toEqual([{ from: 1, to: index - 36, decision: "dropped", by: "over budget", reason: "older than the window's cut: the budget had no room", rows: expect.any(Array) }]);
    expect(view.folds[0]!.rows).toHaveLength(index - 37);
  });
  it("words the by column for the user, never 'window' or 'pipeline'", () => {
    expect(new Set(view.rows.map((r) => r.by))).toEqual(new Set(["instruction", "over budget", "fits budget"]));
    const analysis = { module: "context-persistent", model: "gpt-4o", turns: [{ ...simTurn(turn, index), decisions: [{ from: 0, to: index, decision: "dropped" as const, strategy: "summarize", reason: "covered by a summary" }] }] };
    const simulated = turnWindow({ ...session, analysis }, turn, "simulation")!;
    expect(simulated.origin).toBe("simulation");
    expect(simulated.rows[5]!.by).toBe("summarize");
    expect(turnWindow({ ...session, analysis }, turn, "sent")!.origin).toBe("sent");
  });
  it("has no sent view for a turn without a record", () => {
    expect(turnWindow(session, 3, "sent")).toBeUndefined();
  });
  it("charts what was sent when there are records", () => {
    expect(sessionCharts(undefined, session.recorded)).toMatchObject({ turns: [turn], budget: [14_000], windowTokens: [13_400], windowSource: "sent", prefixKept: [null] });
  });
});

describe("timeline: a tool call once (issue 24 item 10)", () => {
  const messages: Message[] = [
    { role: "user", content: "list files", metadata: { id: "u", timestamp: at(1) } },
    { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }], metadata: { id: "a", timestamp: at(3) } },
    { role: "tool", tool_call_id: "c1", content: "a.ts", metadata: { id: "t", timestamp: at(5) } },
    { role: "assistant", content: "one file", metadata: { id: "a2", timestamp: at(7) } },
  ];
  const events: MemoryEventJson[] = [
    { event_id: "e1", timestamp: at(0), event_type: "user_message", content: "list files" },
    { event_id: "e2", timestamp: at(2), event_type: "tool_call", content: { tool: "ls", arguments: {}, callId: "c1" } },
    { event_id: "e3", timestamp: at(4), event_type: "tool_result", content: { tool: "ls", result: "a.ts", callId: "c1" } },
    { event_id: "e4", timestamp: at(6), event_type: "error", content: "ls: slow disk" },
    { event_id: "e5", timestamp: at(8), event_type: "agent_response", content: "one file" },
  ];
  const entries = timeline({ messages: messageViews(messages), events });
  it("lists the message, not the memory event that records it, and marks the message", () => {
    expect(entries.map((e) => (e.kind === "event" ? e.eventType : e.message.id))).toEqual(["u", "a", "t", "error", "a2"]);
    const call = entries.find((e) => e.kind === "message" && e.message.id === "a")!;
    expect(call).toMatchObject({ marks: ["in memory"], recorded: [{ event_id: "e2" }] });
  });
});

function simTurn(turn: number, messageIndex: number): AnalyzedTurn {
  return { turn, messageIndex, historyMessages: messageIndex, historyTokens: 1, windowMessages: 1, windowTokens: 1, budget: 110_616, prefixKept: 1, instructionTokens: 0, historyKeptTokens: 1, toolTokens: 0 };
}
