/**
 * analyzeSession in a worker thread (issue 24, item 4: a large session's analysis never holds the
 * server's event loop): the replay runs in another thread — a context module mounted by it names a
 * thread that is not the caller's —, with the same result, progress and errors as in-thread; an
 * abort terminates the thread; a thread that dies is INSPECTOR/ANALYSIS_FAILED, which the
 * Inspector shows as the session's analysisError.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { threadId } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { isAmplifierError } from "@amplifier-ts/contracts";
import { createInspector, type InspectorSource } from "@amplifier-ts/inspector";
import { analyzeSession } from "../../src/replay/session-analysis.js";
import { AnalysisThreads, analyzeSessionInWorker } from "../../src/replay/session-analysis-threads.js";

const conversation = (turns: number): Message[] =>
  Array.from({ length: turns }, (_, i) => [
    { role: "user", content: `question ${i} ${"words ".repeat(30)}`, metadata: { id: `u${i}` } } as Message,
    { role: "assistant", content: `answer ${i} ${"words ".repeat(30)}`, metadata: { id: `a${i}` } } as Message,
  ]).flat();

const THREAD_CONTEXT = fileURLToPath(new URL("../fixtures/modules/thread-context.mjs", import.meta.url));
const threadConfig = { session: { context: { module: THREAD_CONTEXT } } };

const pools: AnalysisThreads[] = [];
const pool = (options?: ConstructorParameters<typeof AnalysisThreads>[0]) => {
  const made = new AnalysisThreads(options);
  pools.push(made);
  return made;
};
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
});

describe("analyzeSessionInWorker", () => {
  it("replays in another thread than the caller's, with analyzeSession's result", async () => {
    // In-thread, the fixture names the caller's thread: the check below is not vacuous.
    const inThread = await analyzeSession(conversation(2), { config: threadConfig, budget: 2_000 });
    expect(inThread.analysis.module).toBe(`thread-${threadId}`);
    const inWorker = await analyzeSessionInWorker(conversation(2), { config: threadConfig, budget: 2_000 });
    expect(inWorker.analysis.module).toMatch(/^thread-\d+$/);
    expect(inWorker.analysis.module).not.toBe(`thread-${threadId}`);

    const messages = conversation(12);
    const here = await analyzeSession(messages, { budget: 1_000 });
    const there = await analyzeSessionInWorker(messages, { budget: 1_000 });
    expect(there.analysis).toEqual(here.analysis);
    expect(there.tokens).toEqual(here.tokens);
    expect(there.replay.summary.turns).toBe(12);
    // The replay's turns come without `window` (its explanation is the analysis' decisions).
    expect(there.replay.turns.map((t) => t.windowTokens)).toEqual(here.replay.turns.map((t) => t.windowTokens));
    expect(there.replay.turns.every((t) => t.window === undefined)).toBe(true);
  });

  it("starts its thread from a program run with --input-type=module -e (the thread refuses those flags: they are not passed on)", () => {
    const dist = new URL("../../dist/replay.js", import.meta.url).href;
    const program = `const { analyzeSessionInWorker } = await import(${JSON.stringify(dist)}); const { analysis } = await analyzeSessionInWorker([{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }], { budget: 2000 }); console.log(analysis.turns.length);`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", program], { encoding: "utf8", timeout: 60_000 });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("1");
    expect(run.status).toBe(0);
  });

  it("reports each replayed turn", async () => {
    const progress: Array<[number, number]> = [];
    const { analysis } = await pool().analyze(conversation(6), { budget: 2_000, onProgress: (done, total) => progress.push([done, total]) });
    expect(analysis.turns).toHaveLength(6);
    expect(progress).toEqual([1, 2, 3, 4, 5, 6].map((done) => [done, 6]));
  });

  it("an abort terminates the running thread, takes a waiting analysis out of the queue, and the next analysis gets a new thread", async () => {
    const threads = pool({ threads: 1 });
    const running = new AbortController();
    const waiting = new AbortController();
    const first = threads.analyze(conversation(40), { budget: 2_000, signal: running.signal, onProgress: (done) => done === 2 && running.abort(new Error("session changed")) });
    const second = threads.analyze(conversation(3), { signal: waiting.signal });
    expect(threads.stats).toEqual({ threads: 1, busy: 1, queued: 1 });
    waiting.abort(new Error("page closed"));
    await expect(second).rejects.toThrow("page closed");
    expect(threads.stats.queued).toBe(0);
    await expect(first).rejects.toThrow("session changed");
    expect(threads.stats).toEqual({ threads: 0, busy: 0, queued: 0 });
    // Already aborted: rejected before any thread starts.
    await expect(threads.analyze(conversation(2), { signal: AbortSignal.abort(new Error("gone")) })).rejects.toThrow("gone");
    expect(threads.stats.threads).toBe(0);
    const { analysis } = await threads.analyze(conversation(3), { budget: 2_000 });
    expect(analysis.turns).toHaveLength(3);
    expect(threads.stats).toEqual({ threads: 1, busy: 0, queued: 0 });
  });

  it("an error of the analysis keeps its code across threads", async () => {
    const config = { session: { context: { module: "no-such-context-module" } } };
    const here = await analyzeSession(conversation(2), { config }).catch((e: unknown) => e);
    const there = await pool().analyze(conversation(2), { config }).catch((e: unknown) => e);
    expect(isAmplifierError(here, "MODULE_NOT_FOUND")).toBe(true);
    expect(isAmplifierError(there, "MODULE_NOT_FOUND")).toBe(true);
    expect((there as Error).message).toBe((here as Error).message);
    expect((there as { details: { module?: string } }).details.module).toBe("no-such-context-module");
  });

  it("a thread that dies (out of memory) is INSPECTOR/ANALYSIS_FAILED, shown as the session's analysisError; the pool goes on", async () => {
    const threads = pool({ threads: 1, maxHeapMb: 4 });
    const failed = await threads.analyze(conversation(30)).catch((e: unknown) => e);
    expect(isAmplifierError(failed, "INSPECTOR/ANALYSIS_FAILED")).toBe(true);
    expect((failed as Error).message).toMatch(/memory/);
    expect(threads.stats.threads).toBe(0);

    const messages = conversation(30);
    const source: InspectorSource = { name: "store", listSessions: async () => [{ sessionId: "chat", count: messages.length }], read: async (id) => (id === "chat" ? messages.slice() : undefined) };
    const inspector = createInspector({ sources: [source], analyze: (m, sessionId, _simulation, control) => threads.analyze(m, { name: sessionId, ...(control === undefined ? {} : { onProgress: control.onProgress, signal: control.signal }) }) });
    const view = await inspector.session("store", "chat");
    expect(view.analysis).toBeUndefined();
    expect(view.analysisError).toMatch(/^\[INSPECTOR\/ANALYSIS_FAILED\] its thread failed: .*memory/);
    expect(view.messages).toHaveLength(60);

    const roomy = pool({ threads: 1 });
    const { analysis } = await roomy.analyze(conversation(3), { budget: 2_000 });
    expect(analysis.turns).toHaveLength(3);
  });
});
