import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { decodeWindowSegment, encodeWindowSegment, isAmplifierError, WINDOW_SEGMENT_SIZE, type ToolDefinition, type WindowRecord } from "../../contracts/index.js";
import { Coordinator } from "../../core/coordinator.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { HistoryContextManager } from "../../modules/context-manager/index.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";
import { windowRecordsAttachment } from "../../modules/context-persistent/window-records-attachment.js";
import type { Message } from "../../contracts/generated/message.js";
import { generateHistory } from "../bench/history-generator.js";

/**
 * Issue 24 item 8: the manager records what each request sent — budget, model, tool definitions
 * with their tokens, run-length decisions — and context-persistent keeps the records beside the
 * session (attachments windows-<n>), written off the turn's path.
 */
const tool = (name: string): ToolDefinition => ({ type: "function", function: { name, description: `the ${name} tool`, parameters: { type: "object", properties: { path: { type: "string" } } } } });
const TOOLS = [tool("read_file"), tool("write_file"), tool("search")];

async function filled(context: HistoryContextManager, turns: number): Promise<void> {
  await context.addMessage({ role: "system", content: "You are terse." });
  for (let i = 0; i < turns; i++) {
    await context.addMessage({ role: "user", content: `question ${i} ${"lorem ipsum ".repeat(40)}` });
    await context.addMessage({ role: "assistant", content: `answer ${i} ${"dolor sit ".repeat(40)}` });
  }
}

/** Every stored position covered once, in order. */
function covered(record: WindowRecord): number[] {
  return record.runs.flatMap(([from, to]) => Array.from({ length: to - from }, (_, k) => from + k));
}

describe("window records (what was sent)", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it("records the budget, model, each tool definition with its tokens, and run-length decisions — without explain", async () => {
    const context = new HistoryContextManager({ moduleName: "test-records", tools: TOOLS });
    await filled(context, 60);
    const window = await context.getMessagesForRequest(2_000);
    const [record] = context.windowRecords();
    const counter = getTokenCounter("gpt-4o");
    expect(record).toBeDefined();
    expect(record!.budget).toBe(2_000);
    expect(record!.model).toBe(context.explainLastWindow()!.model);
    expect(record!.tools.map((t) => t.name)).toEqual(["read_file", "write_file", "search"]);
    for (const [i, t] of record!.tools.entries()) expect(t.tokens).toBe(counter.countTools([TOOLS[i]!]));
    expect(record!.toolTokens).toBe(counter.countTools(TOOLS));
    expect(record!.windowTokens).toBe(counter.countRequest(window, TOOLS));
    expect(record!.windowMessages).toBe(window.length);
    expect(record!.history).toBe(121);
    expect(covered(record!)).toEqual(Array.from({ length: 121 }, (_, i) => i));
    // The system message kept, an old run dropped over budget, the recent run kept: three runs, not 121 rows.
    expect(record!.runs).toEqual([
      [0, 1, "kept", "window", "instruction"],
      [1, record!.runs[1]![1], "dropped", "window", "before-cut"],
      [record!.runs[1]![1], 121, "kept", "window", "in-window"],
    ]);
    const kept = record!.runs.filter((r) => r[2] === "kept").reduce((n, [from, to]) => n + to - from, 0);
    expect(kept).toBe(window.length);
  });

  it("under a compaction pipeline, without explain: every stored position covered once, the sent ones kept, the ones the pipeline removed named by it", async () => {
    const context = new HistoryContextManager({ moduleName: "test-records", options: { strategies: [{ use: "sliding-window", maxMessages: 20 }] } });
    await filled(context, 30);
    const window = await context.getMessagesForRequest(100_000);
    const record = context.windowRecords().at(-1)!;
    expect(record.strategies).toEqual(["sliding-window", "window"]);
    expect(covered(record)).toEqual(Array.from({ length: 61 }, (_, i) => i));
    const kept = record.runs.filter((r) => r[2] === "kept").reduce((n, [from, to]) => n + to - from, 0);
    expect(kept).toBe(window.length);
    expect(record.runs.some(([, , decision, by, why]) => decision === "dropped" && by === "sliding-window" && why === "removed-by-pipeline")).toBe(true);
  });

  it("under a pipeline, a record made turn after turn (stored positions kept for the output's unchanged part) equals one made once over the same history", async () => {
    const history: Message[] = generateHistory({ count: 120, seed: 77, idPrefix: "r" });
    // No steps (targetRatio 1): each output depends on the history alone, not on earlier requests.
    // Spilling off: a result spilled for a small window stays spilled, which one window at the end would not do.
    for (const strategies of [
      [{ use: "tool-result-compaction", maxChars: 200 }],
      [{ use: "tool-result-compaction", maxChars: 200 }, { use: "sliding-window", maxMessages: 25, targetRatio: 1 }],
    ]) {
      const options = { spill: false as const, strategies };
      const everyTurn = new HistoryContextManager({ moduleName: "test-records", options });
      for (const [i, m] of history.entries()) {
        await everyTurn.addMessage(m);
        if (i % 3 !== 1) await everyTurn.getMessagesForRequest(i % 2 === 0 ? 100_000 : 3_000);
      }
      await everyTurn.getMessagesForRequest(100_000);
      const once = new HistoryContextManager({ moduleName: "test-records", options });
      for (const m of history) await once.addMessage(m);
      await once.getMessagesForRequest(100_000);
      const runs = (c: HistoryContextManager) => c.windowRecords().at(-1)!.runs;
      expect(runs(everyTurn)).toEqual(runs(once));
      expect(covered(once.windowRecords().at(-1)!)).toEqual(Array.from({ length: history.length }, (_, i) => i));
    }
  });

  it("without explain, each stored message gets the decision and reason code explain gives it (critical, tool groups, truncated results, several budgets)", async () => {
    const fill = async (context: HistoryContextManager) => {
      await context.addMessage({ role: "system", content: "You are terse.", metadata: { id: "sys" } });
      for (let i = 0; i < 30; i++) {
        await context.addMessage({ role: "user", content: `question ${i} ${"lorem ipsum ".repeat(20)}`, metadata: { id: `u${i}`, ...(i === 3 ? { critical: true } : {}) } });
        await context.addMessage({ role: "assistant", content: "", tool_calls: [{ id: `c${i}`, type: "function", function: { name: "read_file", arguments: "{}" } }], metadata: { id: `a${i}` } });
        await context.addMessage({ role: "tool", tool_call_id: `c${i}`, content: `result ${i} ${"x = 1; ".repeat(i === 29 ? 900 : 30)}`, metadata: { id: `t${i}` } });
      }
    };
    const seen = new Set<string>();
    // Spilling on (the default: the large result 29 is sent as an excerpt) and off (cut to fit instead).
    for (const [budget, options] of [900, 1_500, 4_000, 100_000].flatMap((b) => [[b, {}], [b, { spill: false }]] as const)) {
      const plain = new HistoryContextManager({ moduleName: "test-records", options });
      const explained = new HistoryContextManager({ moduleName: "test-records", options });
      await fill(plain);
      await fill(explained);
      await plain.getMessagesForRequest(budget);
      await explained.getMessagesForRequest(budget, undefined, { explain: true });
      const decisionAt = (record: WindowRecord, i: number) => record.runs.find(([from, to]) => from <= i && i < to)![2];
      const a = plain.windowRecords().at(-1)!;
      const b = explained.windowRecords().at(-1)!;
      expect(covered(a)).toEqual(covered(b));
      const runAt = (record: WindowRecord, i: number) => record.runs.find(([from, to]) => from <= i && i < to)!;
      for (let i = 0; i < a.history; i++) expect([runAt(a, i)[2], runAt(a, i)[4]], `budget ${budget}, message ${i}`).toEqual([runAt(b, i)[2], runAt(b, i)[4]]);
      for (const run of a.runs) seen.add(`${run[2]} ${run[4]}`);
    }
    // The cases the comparison covered: a truncated result, the critical prompt before the cut, dropped over budget.
    expect([...seen]).toEqual(expect.arrayContaining(["truncated result-cap", "truncated spilled", "kept critical", "dropped before-cut", "kept instruction", "kept in-window"]));
  });

  it("with explain, the runs are the explanation's (same decisions as explainLastWindow)", async () => {
    const context = new HistoryContextManager({ moduleName: "test-records" });
    await filled(context, 40);
    await context.getMessagesForRequest(1_500, undefined, { explain: true });
    const explanation = context.explainLastWindow()!.explanation!;
    const record = context.windowRecords().at(-1)!;
    const decisionAt = (i: number) => record.runs.find(([from, to]) => from <= i && i < to)![2];
    for (const e of explanation) expect(decisionAt(e.index)).toBe(e.decision);
  });

  it("context-persistent writes them as the session's attachments, one segment per WINDOW_SEGMENT_SIZE records, readable after close", async () => {
    const dir = await mkdtemp(join(tmpdir(), "window-records-"));
    dirs.push(dir);
    const coordinator = new Coordinator({ sessionId: "rec" });
    const context = await mountPersistent(coordinator, { storagePath: dir });
    context.setTools(TOOLS);
    await filled(context, 2);
    const requests = WINDOW_SEGMENT_SIZE + 6;
    for (let i = 0; i < requests; i++) {
      await context.addMessage({ role: "user", content: `more ${i}` });
      await context.getMessagesForRequest(1_200);
      await context.addMessage({ role: "assistant", content: `ok ${i}` });
    }
    await coordinator.cleanup();
    const files = (await readdir(dir)).filter((f) => f.startsWith("rec.windows-")).sort();
    expect(files).toEqual(["rec.windows-0.json", "rec.windows-1.json"]);
    const records = [...decodeWindowSegment(await readFile(join(dir, files[0]!), "utf8")), ...decodeWindowSegment(await readFile(join(dir, files[1]!), "utf8"))];
    expect(records).toHaveLength(requests);
    expect(records.map((r) => r.history)).toEqual(Array.from({ length: requests }, (_, i) => 6 + 2 * i));
    expect(records.every((r) => r.budget === 1_200 && r.tools.length === 3)).toBe(true);

    // A resumed session appends to the newest segment.
    const again = new Coordinator({ sessionId: "rec" });
    const resumed = await mountPersistent(again, { storagePath: dir });
    await resumed.getMessagesForRequest(1_200);
    await again.cleanup();
    expect(decodeWindowSegment(await readFile(join(dir, "rec.windows-1.json"), "utf8"))).toHaveLength(7);
  });

  it("writes off the turn's path, coalesced: a burst of records costs a few segment writes, and flush writes the rest", async () => {
    const texts = new Map<string, string>();
    let writes = 0;
    const attachment = (name: string) => ({
      where: name,
      read: async () => texts.get(name),
      write: async (text: string) => {
        writes++;
        await new Promise((resolve) => setTimeout(resolve, 5));
        texts.set(name, text);
      },
    });
    const problems: string[] = [];
    const log = windowRecordsAttachment(attachment, async (reason) => void problems.push(reason), 60_000);
    const context = new HistoryContextManager({ moduleName: "test-records", tools: TOOLS, onWindow: (record) => log.add(record) });
    await filled(context, 3);
    for (let i = 0; i < 100; i++) await context.getMessagesForRequest(1_000);
    // One write started at once; the rest wait for the interval (a minute here) or the flush.
    expect(writes).toBe(1);
    await log.flush();
    expect(writes).toBeLessThanOrEqual(3);
    const stored = [...decodeWindowSegment(texts.get("windows-0")!), ...decodeWindowSegment(texts.get("windows-1")!)];
    expect(stored).toEqual(context.windowRecords());
    expect(problems).toEqual([]);
  });

  it("a segment that is not a record is WINDOW_RECORD_INVALID naming the field", () => {
    const good = encodeWindowSegment([{ at: "2026-01-01T00:00:00Z", history: 2, model: "m", encoding: "o200k_base", budget: 10, windowMessages: 2, windowTokens: 9, historyTokens: 9, instructionTokens: 0, toolTokens: 0, tools: [], strategies: ["window"], runs: [[0, 2, "kept", "window", "in-window"]] }]);
    expect(decodeWindowSegment(good)[0]!.runs).toEqual([[0, 2, "kept", "window", "in-window"]]);
    for (const [text, path] of [
      ["{", ""],
      [good.replace('"budget":10', '"budget":-1'), "windows[0].budget"],
      [good.replace("[0,2,", "[0,3,"), "windows[0].runs[0]"],
      [good.replace('"tools":0', '"tools":4'), "windows[0].tools"],
    ] as const) {
      let error: unknown;
      try {
        decodeWindowSegment(text);
      } catch (e) {
        error = e;
      }
      expect(isAmplifierError(error, "WINDOW_RECORD_INVALID")).toBe(true);
      expect((error as { details: { path: string } }).details.path).toBe(path);
    }
  });
});
