/**
 * Issue 29 §1: `"background": true` on `summarizing` and `summarization`, and
 * `context.compact({ focus })`, through the context manager (HistoryContextManager, what both
 * built-in context modules are). No timed assertions: readiness is awaited through events.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Message, Summarizer } from "@amplifier-ts/contracts";
import { isAmplifierError } from "@amplifier-ts/contracts";
import { getTokenCounter } from "@amplifier-ts/tokens";
import { HookBus } from "../../core/hooks/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { checkWindowInvariants } from "../../testing/window-invariants.js";
import { SummarizingContext, SummarizationCompaction, isSummaryMessage, summarizingOptions } from "../../modules/strategies/summarizing/index.js";
import { coversFingerprint } from "../../modules/strategies/summarizing/summary-message.js";
import { ExplainLog } from "../../modules/strategies/explain-recorder.js";

const counter = getTokenCounter("gpt-4o");
const BUDGET = 6_000;
const words = (n: number, seed = 0) => Array.from({ length: n }, (_, i) => `w${(i * 7 + seed) % 997}`).join(" ");

/** One tool-using turn: a user request naming a file and a ticket, a read_file call, its result, an answer. */
function turn(k: number): Message[] {
  const call = `call_${k}`;
  return [
    { role: "user", content: `Fix the rounding of invoice totals in src/invoices/file${k}.ts for ticket INV-${k}`, metadata: { id: `u${k}` } },
    { role: "assistant", content: "", tool_calls: [{ id: call, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `src/invoices/file${k}.ts` }) } }], metadata: { id: `a${k}` } },
    { role: "tool", tool_call_id: call, name: "read_file", content: words(150, k), metadata: { id: `t${k}` } },
    { role: "assistant", content: `Rounding fixed in src/invoices/file${k}.ts (INV-${k}). ${words(30, k + 1)}`, metadata: { id: `b${k}` } },
  ];
}

/** A summary the way a model following the summary prompt writes it: the task and the files/ids named. */
function faithful(messages: readonly Message[], previous?: string): string {
  const text = messages.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n");
  const task = messages.filter((m) => m.role === "user" && typeof m.content === "string").at(-1)?.content as string | undefined;
  const mentions = [...new Set(text.match(/src\/[\w/.-]+\.ts|INV-\d+/g) ?? [])];
  return [previous ?? "", task ? `Open task: ${task}` : "", `Files and ids: ${mentions.join(", ")}`].filter(Boolean).join("\n");
}

interface Call {
  messages: readonly Message[];
  options: { previousSummary?: string; maxTokens: number; signal?: AbortSignal; focus?: string };
}

function fakeSummarizer(answer: (call: Call, n: number) => Promise<string> | string): Summarizer & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    name: "fake",
    calls,
    async summarize(messages, options) {
      const call = { messages, options };
      calls.push(call);
      return answer(call, calls.length);
    },
  };
}

const managers: HistoryContextManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

function setup(strategy: Record<string, unknown>, summarizer: Summarizer) {
  const hooks = new HookBus();
  const events: Array<{ name: string; data: Record<string, unknown> }> = [];
  for (const name of ["context:summary_prepared", "context:summary_rejected", "context:summary_swapped", "context:summary_failed"] as const) {
    hooks.register(name, (data) => void events.push({ name, data: data as unknown as Record<string, unknown> }));
  }
  const manager = new HistoryContextManager({ moduleName: "context-simple", options: { strategies: [strategy] as never, spill: false as never }, hooks, summarizer, coldHistory: false });
  managers.push(manager);
  const next = (name: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const off = hooks.register(name as "context:summary_prepared", (data) => {
        off();
        resolve(data as unknown as Record<string, unknown>);
      });
    });
  return { manager, hooks, events, next };
}

const summarizing = (extra: Record<string, unknown> = {}) => ({ use: "summarizing", background: true, contextWindow: BUDGET, threshold: 0.8, recentRatio: 0.35, summaryMaxTokens: 400, retryDelayMs: 5, ...extra });

async function window(manager: HistoryContextManager): Promise<Message[]> {
  const out = await manager.getMessagesForRequest(BUDGET);
  expect(checkWindowInvariants(await manager.getMessages(), out, { budget: BUDGET, counter })).toEqual([]);
  return out;
}

/** Adds turns (with a window after each) until the history passes `tokens`. */
async function growTo(manager: HistoryContextManager, tokens: number, from: number): Promise<number> {
  let k = from;
  await manager.addMessage({ role: "system", content: "You are a careful coding agent.", metadata: { id: "sys" } }).catch(() => undefined);
  while (counter.countMessages(await manager.getMessages()) < tokens) {
    for (const m of turn(k)) await manager.addMessage(m);
    k++;
    await window(manager);
  }
  return k;
}

const hasSummary = (w: readonly Message[]) => w.some((m) => isSummaryMessage(m));

describe("background summarization (summarizing)", () => {
  it("prepares past the lower watermark without waiting, falls back while not ready, swaps once ready", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const summarizer = fakeSummarizer(async (call) => {
      await gate;
      return faithful(call.messages, call.options.previousSummary);
    });
    const { manager, events, next } = setup(summarizing(), summarizer);
    // Past prepareAt (midway: 0.575 × window) a call starts; the windows do not wait for it.
    let k = await growTo(manager, 0.6 * BUDGET, 0);
    expect(summarizer.calls).toHaveLength(1);
    // Past the threshold, not ready: the window is the history (the assembler's ladder fits it), valid and under budget.
    k = await growTo(manager, 0.85 * BUDGET, k);
    const fallback = await window(manager);
    expect(hasSummary(fallback)).toBe(false);
    expect(summarizer.calls).toHaveLength(1);
    const prepared = next("context:summary_prepared");
    release();
    await prepared;
    const swapped = await window(manager);
    expect(hasSummary(swapped)).toBe(true);
    expect(events.map((e) => e.name)).toEqual(["context:summary_prepared", "context:summary_swapped"]);
    // The summary stands for what the call was given; everything after is verbatim.
    const summary = swapped.find((m) => isSummaryMessage(m))!;
    expect(summary.metadata!.summary!.covers).toEqual(summarizer.calls[0]!.messages.map((m) => m.metadata?.id));
    expect(counter.countMessages(swapped)).toBeLessThan(0.8 * BUDGET);
    // The next turns extend the same prefix (cache-friendly): the summary object is the same.
    for (const m of turn(k)) await manager.addMessage(m);
    const later = await window(manager);
    expect(later.find((m) => isSummaryMessage(m))).toBe(summary);
  });

  it.each([
    ["an empty summary", "", /empty/],
    ["a task-less summary", "The conversation went well and some files were read.", /open task/],
  ])("%s cancels the swap (context:summary_rejected) and the next window is still valid", async (_label, text, reason) => {
    const summarizer = fakeSummarizer(() => text);
    const { manager, events } = setup(summarizing({ retryDelayMs: 60_000 }), summarizer);
    await growTo(manager, 0.85 * BUDGET, 0);
    await manager.getMessagesForRequest(BUDGET);
    await new Promise((r) => setImmediate(r));
    const rejected = events.filter((e) => e.name === "context:summary_rejected");
    expect(rejected.length).toBeGreaterThan(0);
    expect(String(rejected[0]!.data.reason)).toMatch(reason);
    expect(events.some((e) => e.name === "context:summary_swapped")).toBe(false);
    const w = await window(manager);
    expect(hasSummary(w)).toBe(false);
    for (const m of turn(99)) await manager.addMessage(m);
    expect(hasSummary(await window(manager))).toBe(false);
  });

  it("a failed call is reported and retried with backoff until one succeeds", async () => {
    const summarizer = fakeSummarizer((call, n) => {
      if (n <= 2) throw new Error(`model overloaded (${n})`);
      return faithful(call.messages);
    });
    const { manager, events, next } = setup(summarizing({ retryDelayMs: 10 }), summarizer);
    const prepared = next("context:summary_prepared");
    await growTo(manager, 0.6 * BUDGET, 0);
    const ready = await prepared;
    const failed = events.filter((e) => e.name === "context:summary_failed").map((e) => e.data);
    expect(failed).toEqual([
      expect.objectContaining({ background: true, attempt: 1, retryInMs: 10, reason: expect.stringMatching(/overloaded \(1\)/) }),
      expect.objectContaining({ background: true, attempt: 2, retryInMs: 20 }),
    ]);
    expect(failed.every((f) => f.dropped === undefined)).toBe(true);
    expect(ready).toMatchObject({ attempt: 3 });
    expect(summarizer.calls).toHaveLength(3);
  });

  it("close() aborts the call in flight, awaits it and schedules nothing after", async () => {
    let signal: AbortSignal | undefined;
    const summarizer = fakeSummarizer(
      (call) =>
        new Promise<string>((_, reject) => {
          signal = call.options.signal;
          call.options.signal?.addEventListener("abort", () => reject(new Error("aborted")));
        }),
    );
    const { manager, events } = setup(summarizing(), summarizer);
    await growTo(manager, 0.6 * BUDGET, 0);
    const strategy = manager.pipeline.strategies[0] as SummarizingContext;
    expect(strategy.background?.busy).toBe(true);
    await manager.close();
    expect(signal?.aborted).toBe(true);
    expect(strategy.background?.busy).toBe(false);
    await new Promise((r) => setTimeout(r, 20));
    expect(events).toEqual([]);
    expect(summarizer.calls).toHaveLength(1);
  });

  it("wait: true — at overflow with nothing ready the request waits for the summary", async () => {
    const summarizer = fakeSummarizer(async (call) => {
      await new Promise((r) => setTimeout(r, 30));
      return faithful(call.messages, call.options.previousSummary);
    });
    // prepareAt just under the threshold: the preparation starts in the turn that also overflows.
    const { manager, events } = setup(summarizing({ wait: true, prepareAt: 0.79 }), summarizer);
    let sawSummary = false;
    let k = 0;
    await manager.addMessage({ role: "system", content: "You are a careful coding agent.", metadata: { id: "sys" } });
    while (!sawSummary && k < 60) {
      for (const m of turn(k++)) await manager.addMessage(m);
      sawSummary = hasSummary(await window(manager));
    }
    expect(sawSummary).toBe(true);
    const swapped = events.find((e) => e.name === "context:summary_swapped");
    expect(swapped?.data.waitedMs).toEqual(expect.any(Number));
  });

  it("re-injection manifest: the newest read_file calls of the cut part stay verbatim after the swap", async () => {
    const summarizer = fakeSummarizer((call) => faithful(call.messages, call.options.previousSummary));
    const { manager, next } = setup(summarizing({ reinject: { results: { tools: ["read_file"], last: 1 } } }), summarizer);
    const prepared = next("context:summary_prepared");
    let k = await growTo(manager, 0.6 * BUDGET, 0);
    await prepared;
    k = await growTo(manager, 0.85 * BUDGET, k);
    const w = await window(manager);
    const summary = w.find((m) => isSummaryMessage(m))!;
    expect(summary).toBeDefined();
    const covered = new Set(summary.metadata!.summary!.covers);
    // The newest read_file unit before the recent part: its call and result are in the window, not covered.
    const summarized = summarizer.calls[0]!.messages;
    const lastCovered = Number(String(summarized.at(-1)!.metadata!.id).slice(1));
    const keptCall = w.find((m) => m.role === "assistant" && m.tool_calls?.length && Number(String(m.metadata!.id).slice(1)) === lastCovered + 1);
    expect(keptCall).toBeDefined();
    expect(covered.has(String(keptCall!.metadata!.id))).toBe(false);
    expect(w.some((m) => m.metadata?.id === `t${lastCovered + 1}`)).toBe(true);
  });
});

describe("manual compaction: context.compact({ focus })", () => {
  it("hands the focus to the summarizer, swaps the summary in, and later windows keep it", async () => {
    const summarizer = fakeSummarizer((call) => faithful(call.messages, call.options.previousSummary));
    const { manager, events } = setup({ use: "summarizing", contextWindow: BUDGET, summaryMaxTokens: 400 }, summarizer);
    let k = await growTo(manager, 0.6 * BUDGET, 0);
    expect(summarizer.calls).toHaveLength(0);
    const result = await manager.compact({ focus: "the JPY rounding rules" });
    expect(result).toMatchObject({ compacted: true, strategy: "summarizing" });
    expect(result.summarized).toBeGreaterThan(0);
    expect(summarizer.calls.map((c) => c.options.focus)).toEqual(["the JPY rounding rules"]);
    expect(events.find((e) => e.name === "context:summary_swapped")?.data).toMatchObject({ manual: true });
    for (const m of turn(k++)) await manager.addMessage(m);
    expect(hasSummary(await window(manager))).toBe(true);
    expect(summarizer.calls).toHaveLength(1);
  });

  it("summarization: compact({ focus }) too, and its cut holds on later windows", async () => {
    const summarizer = fakeSummarizer((call) => faithful(call.messages, call.options.previousSummary));
    const { manager } = setup({ use: "summarization", recentTokenBudget: 4_000, minOldTokens: 100, summaryMaxTokens: 400 }, summarizer);
    // Past targetRatio × recentTokenBudget (2,800) but under it: no automatic summary yet.
    const k = await growTo(manager, 3_500, 0);
    expect(summarizer.calls).toHaveLength(0);
    const result = await manager.compact({ focus: "INV-3" });
    expect(result).toMatchObject({ compacted: true, strategy: "summarization" });
    expect(summarizer.calls[0]!.options.focus).toBe("INV-3");
    // The manual cut holds: the next window keeps the summary without another call.
    expect(hasSummary(await window(manager))).toBe(true);
    expect(summarizer.calls).toHaveLength(1);
    // Once the history passes recentTokenBudget the stepped cut moves on: an UPDATE of that summary.
    for (const m of turn(k)) await manager.addMessage(m);
    expect(hasSummary(await window(manager))).toBe(true);
    expect(summarizer.calls.slice(1).every((c) => c.options.previousSummary?.includes("INV-0"))).toBe(true);
  });

  it("a failed check leaves the history as it was and says why", async () => {
    const summarizer = fakeSummarizer(() => "");
    const { manager } = setup({ use: "summarizing", contextWindow: BUDGET, summaryMaxTokens: 400 }, summarizer);
    await growTo(manager, 0.6 * BUDGET, 0);
    const result = await manager.compact();
    expect(result).toMatchObject({ compacted: false, reason: expect.stringMatching(/empty/) });
    expect(hasSummary(await window(manager))).toBe(false);
  });

  it("without a summarizing strategy: COMPACTION_UNAVAILABLE", async () => {
    const manager = new HistoryContextManager({ moduleName: "context-simple" });
    managers.push(manager);
    const error = await manager.compact({ focus: "x" }).catch((e: unknown) => e);
    expect(isAmplifierError(error, "COMPACTION_UNAVAILABLE")).toBe(true);
  });
});

describe("background summarization (summarization)", () => {
  it("prepares ahead of the cut and swaps the prepared summary in when the cut moves", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const summarizer = fakeSummarizer(async (call) => {
      await gate;
      return faithful(call.messages, call.options.previousSummary);
    });
    const { manager, events, next } = setup({ use: "summarization", background: true, recentTokenBudget: 3_000, minOldTokens: 100, summaryMaxTokens: 400 }, summarizer);
    let k = await growTo(manager, 2_900, 0);
    expect(summarizer.calls).toHaveLength(1);
    // The cut moves (recent part > recentTokenBudget) before the summary is ready: nothing is dropped, nothing waits.
    k = await growTo(manager, 4_000, k);
    expect(hasSummary(await window(manager))).toBe(false);
    const prepared = next("context:summary_prepared");
    release();
    await prepared;
    for (const m of turn(k++)) await manager.addMessage(m);
    const w = await window(manager);
    expect(hasSummary(w)).toBe(true);
    expect(events.map((e) => e.name)).toContain("context:summary_swapped");
    const strategy = manager.pipeline.strategies[0] as SummarizationCompaction;
    expect(strategy.background).toBeDefined();
  });
});

describe("checkpoint fingerprints", () => {
  it("an update's fingerprint, hashed from the previous checkpoint's state, equals the fingerprint of all it covers", async () => {
    const strategy = new SummarizingContext(summarizingOptions.parse({ contextWindow: BUDGET, threshold: 0.8, recentRatio: 0.35, summaryMaxTokens: 400 }));
    const context = { budget: BUDGET, counter, explain: new ExplainLog(false), summarizer: fakeSummarizer((call) => faithful(call.messages, call.options.previousSummary)) };
    const history: Message[] = [{ role: "system", content: "rules", metadata: { id: "sys" } }];
    const seen = new Set<Message>();
    for (let k = 0; k < 40; k++) {
      history.push(...turn(k));
      await strategy.compact(history, context);
      const checkpoint = strategy.checkpoint;
      if (checkpoint) seen.add(checkpoint);
    }
    expect(seen.size).toBeGreaterThanOrEqual(2);
    const byId = new Map(history.map((m) => [m.metadata!.id, m] as const));
    for (const checkpoint of seen) {
      const covered = checkpoint.metadata!.summary!.covers.map((id: string) => byId.get(id)!);
      expect(checkpoint.metadata!.summary!.fingerprint).toBe(coversFingerprint(covered));
    }
  });
});
