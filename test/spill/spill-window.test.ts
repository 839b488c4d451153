/**
 * Issue 28 part 1: a single input bigger than what is left of the window is spilled to the
 * session's blob store; the history keeps it whole; windows carry a query-aware excerpt with its
 * handle; context:spill says so once; explain shows "spilled (N tokens → excerpt of M)".
 */
import { describe, expect, it } from "vitest";
import type { AmplifierEvents } from "../../contracts/events.js";
import type { Message } from "../../contracts/generated/message.js";
import { HookBus } from "../../core/hooks/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { bigLog, NEEDLE, toolRound } from "./spill-fixtures.js";

type Spill = AmplifierEvents["context:spill"];
const BUDGET = 16_000;

function manager(options: Record<string, unknown> = {}): { context: HistoryContextManager; spills: Spill[] } {
  const hooks = new HookBus();
  const spills: Spill[] = [];
  hooks.on("context:spill", (event) => void spills.push(event));
  return { context: new HistoryContextManager({ moduleName: "context-simple", options: { model: "gpt-4o", ...options }, hooks }), spills };
}

const textOf = (m: Message | undefined) => (typeof m?.content === "string" ? m.content : JSON.stringify(m?.content));
/** Counted independently of the manager: a fresh counter of the tokens package over the request. */
const independentCount = (window: Message[]) => getTokenCounter("gpt-4o").countRequest(window);

describe("spilling a single oversized input", () => {
  it("a 400 kB tool result: the window is under budget, keeps the pairing and carries an excerpt with the handle; the history keeps it whole", async () => {
    const { context, spills } = manager();
    const log = bigLog(400_000);
    for (const m of toolRound("Why did order ord-77123 fail? Check the app log.", log)) await context.addMessage(m);
    const window = await context.getMessagesForRequest(BUDGET);
    expect(independentCount(window)).toBeLessThanOrEqual(BUDGET);
    expect(window.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    const result = window[2]!;
    expect(result.tool_call_id).toBe("call_log");
    expect(spills).toHaveLength(1);
    const { handle } = spills[0]!;
    expect(handle).toMatch(/^spill-[0-9a-f]{24}$/);
    expect(textOf(result)).toContain(handle);
    expect(textOf(result)).toContain("read_stored_result");
    expect(textOf(result)).toContain(NEEDLE);
    // Head and tail of the log are in it too.
    expect(textOf(result)).toContain(log.slice(0, 60));
    expect(textOf(result)).toContain(log.slice(-60));
    // Invariant 5: the stored history is unchanged.
    const stored = await context.getMessages();
    expect(stored[2]!.content).toBe(log);
    expect(await context.readSpilled(handle)).toBe(log);
    const counter = getTokenCounter("gpt-4o");
    expect(spills[0]).toEqual({ messageId: stored[2]!.metadata!.id, role: "tool", toolCallId: "call_log", tokens: counter.countMessage(stored[2]!), excerptTokens: counter.countMessage(result), bytes: Buffer.byteLength(log), handle });
    expect(spills[0]!.excerptTokens).toBeLessThanOrEqual(2_000);
  });

  it("once per message: later windows reuse the excerpt, emit nothing, and the explanation says spilled (N tokens → excerpt of M)", async () => {
    const { context, spills } = manager();
    for (const m of toolRound("Why did order ord-77123 fail?", bigLog(200_000))) await context.addMessage(m);
    const first = await context.getMessagesForRequest(BUDGET);
    await context.addMessage({ role: "assistant", content: "The gateway timed out." });
    const second = await context.getMessagesForRequest(BUDGET, undefined, { explain: true });
    expect(spills).toHaveLength(1);
    expect(second[2]).toEqual(first[2]);
    const entry = context.explainLastWindow()!.explanation!.find((e) => e.role === "tool")!;
    expect(entry.decision).toBe("truncated");
    expect(entry.strategy).toBe("spill");
    expect(entry.reason).toMatch(new RegExp(`^spilled \\(${spills[0]!.tokens} tokens → excerpt of ${spills[0]!.excerptTokens}\\)`));
  });

  it("refocus: true — the excerpt follows the next prompt: a later question brings its matching line into the window", async () => {
    const { context } = manager({ spill: { refocus: true } });
    const other = "2026-11-28T04:30:00.000Z WARN cache worker-2 evicted tenant acme-5521 after quota breach";
    const log = bigLog(300_000).replace(/\n[^\n]*r-0001000 [^\n]*\n/, `\n${other}\n`);
    expect(log).toContain(other);
    for (const m of toolRound("Summarize the log.", log)) await context.addMessage(m);
    await context.addMessage({ role: "assistant", content: "It is mostly request lines." });
    await context.addMessage({ role: "user", content: "What happened to tenant acme-5521?" });
    const window = await context.getMessagesForRequest(BUDGET);
    expect(independentCount(window)).toBeLessThanOrEqual(BUDGET);
    expect(textOf(window.find((m) => m.role === "tool"))).toContain(other);
  });

  it("the tool call's arguments steer the excerpt too: a line matching only them is in it", async () => {
    const { context } = manager();
    const other = "2026-11-28T04:30:00.000Z WARN cache worker-2 evicted tenant acme-5521 after quota breach";
    const log = bigLog(300_000).replace(/\n[^\n]*r-0002000 [^\n]*\n/, `\n${other}\n`);
    for (const m of toolRound("Check the cache log, please.", log, "call_grep", '{"path":"/var/log/cache.log","tenant":"acme-5521"}')) await context.addMessage(m);
    const window = await context.getMessagesForRequest(BUDGET);
    expect(textOf(window.at(-1))).toContain(other);
    expect(textOf(window.at(-1))).not.toContain(NEEDLE);
  });

  it("by default the excerpt is made once and stays byte-identical when later prompts ask about other lines (cache friendly)", async () => {
    const { context } = manager();
    for (const m of toolRound("Why did order ord-77123 fail?", bigLog(300_000))) await context.addMessage(m);
    const first = await context.getMessagesForRequest(BUDGET);
    await context.addMessage({ role: "assistant", content: "A gateway timeout." });
    await context.addMessage({ role: "user", content: "And request r-0001000?" });
    const second = await context.getMessagesForRequest(BUDGET);
    expect(JSON.stringify(second[2])).toBe(JSON.stringify(first[2]));
    expect(textOf(second[2])).toContain(NEEDLE);
  });

  it("a user message over the share is spilled too; one under it is not", async () => {
    const { context, spills } = manager();
    await context.addMessage({ role: "user", content: `Here is today's log:\n${bigLog(100_000)}` });
    await context.addMessage({ role: "assistant", content: "Got it." });
    await context.addMessage({ role: "user", content: "What about order ord-77123?" });
    const window = await context.getMessagesForRequest(BUDGET);
    expect(spills.map((s) => s.role)).toEqual(["user"]);
    expect(spills[0]!.toolCallId).toBeUndefined();
    expect(independentCount(window)).toBeLessThanOrEqual(BUDGET);
    expect(textOf(window[0])).toContain(NEEDLE);
    expect(window[2]!.content).toBe("What about order ord-77123?");
  });

  it("Anthropic blocks: a tool_result block is excerpted inside its user message, tool_use_id kept", async () => {
    const { context, spills } = manager();
    await context.addMessage({ role: "user", content: "Why did order ord-77123 fail?" });
    await context.addMessage({ role: "assistant", content: [{ type: "tool_use", id: "tu_1", name: "read_file", input: { path: "app.log" } }] });
    const log = bigLog(150_000);
    await context.addMessage({ role: "user", content: [{ type: "tool_result", tool_use_id: "tu_1", content: [{ type: "text", text: log }] }] });
    const window = await context.getMessagesForRequest(BUDGET);
    expect(spills.map((s) => [s.role, s.toolCallId])).toEqual([["tool", "tu_1"]]);
    const blocks = window[2]!.content as Array<{ type: string; tool_use_id: string; content: Array<{ text: string }> }>;
    expect(blocks[0]!.tool_use_id).toBe("tu_1");
    expect(blocks[0]!.content[0]!.text).toContain(NEEDLE);
    expect(await context.readSpilled(spills[0]!.handle)).toBe(log);
  });

  it("under a compaction pipeline the strategies see the excerpt, not the whole result", async () => {
    const { context, spills } = manager({ strategies: [{ use: "truncation", maxChars: 50_000 }] });
    for (const m of toolRound("Why did order ord-77123 fail?", bigLog(300_000))) await context.addMessage(m);
    const window = await context.getMessagesForRequest(BUDGET);
    expect(spills).toHaveLength(1);
    expect(independentCount(window)).toBeLessThanOrEqual(BUDGET);
    expect(textOf(window.find((m) => m.role === "tool"))).toContain(spills[0]!.handle);
  });

  it("a summarizer gets the excerpt of a spilled result in the old part, never the whole result", async () => {
    const seen: Message[][] = [];
    const summarizer = { name: "capture", summarize: async (messages: readonly Message[]) => (seen.push([...messages]), "- summary") };
    const context = new HistoryContextManager({ moduleName: "context-simple", options: { model: "gpt-4o", strategies: [{ use: "summarization", recentTokenBudget: 600, minOldTokens: 100 }] }, summarizer });
    const log = bigLog(200_000);
    for (const m of toolRound("Why did order ord-77123 fail?", log)) await context.addMessage(m);
    for (let i = 0; i < 6; i++) {
      await context.addMessage({ role: "assistant", content: `Looked at part ${i}.` });
      await context.addMessage({ role: "user", content: `Next question ${i}: ${"context ".repeat(60)}` });
    }
    const window = await context.getMessagesForRequest(BUDGET);
    expect(independentCount(window)).toBeLessThanOrEqual(BUDGET);
    const given = seen.flat().find((m) => m.role === "tool");
    expect(given, "the spilled result was in the summarized part").toBeDefined();
    expect(textOf(given)).toMatch(/spill-[0-9a-f]{24}/);
    expect(textOf(given).length).toBeLessThan(20_000);
  });

  it("spill: false turns it off: no event, the window cuts the result to fit as before", async () => {
    const { context, spills } = manager({ spill: false });
    for (const m of toolRound("Why did order ord-77123 fail?", bigLog(100_000))) await context.addMessage(m);
    const window = await context.getMessagesForRequest(BUDGET);
    expect(spills).toEqual([]);
    expect(independentCount(window)).toBeLessThanOrEqual(BUDGET);
    expect(textOf(window.find((m) => m.role === "tool"))).not.toContain("spill-");
  });

  it("bad spill config is INVALID_MODULE_CONFIG naming the key", () => {
    expect(() => manager({ spill: { share: 2 } })).toThrow(expect.objectContaining({ code: "INVALID_MODULE_CONFIG", details: expect.objectContaining({ path: "config.spill.share" }) }));
    expect(() => manager({ spill: { excerptTokens: 10 } })).toThrow(expect.objectContaining({ code: "INVALID_MODULE_CONFIG" }));
  });

  it("readSpilled: not a handle → INVALID_ARGUMENT; an unknown one → SPILL/UNKNOWN_HANDLE", async () => {
    const { context } = manager();
    await expect(context.readSpilled("../etc/passwd")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(context.readSpilled("spill-000000000000000000000000")).rejects.toMatchObject({ code: "SPILL/UNKNOWN_HANDLE" });
  });
});
