/**
 * A session's analysis is shared and kept (issue 24, item 4): concurrent requests for one unchanged
 * session run the analyzer once; the result is kept until the session changes; a run of content
 * that changed meanwhile is aborted; a request that does not wait gets the progress. (The
 * umbrella's analyzer, analyzeSession, reports progress and yields: test/replay/session-analysis-progress.test.ts.)
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { createInspector, type AnalysisControl, type InspectorSource, type SessionAnalysis, type SessionAnalyzer } from "@amplifier-ts/inspector";
import { startServer, type RunningServer } from "@amplifier-ts/server";

const running: RunningServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

const conversation = (turns: number): Message[] =>
  Array.from({ length: turns }, (_, i) => [
    { role: "user", content: `question ${i} ${"words ".repeat(30)}`, metadata: { id: `u${i}` } } as Message,
    { role: "assistant", content: `answer ${i} ${"words ".repeat(30)}`, metadata: { id: `a${i}` } } as Message,
  ]).flat();

/** A source over one array; `reads` counts the reads of the whole session. */
function arraySource(messages: Message[]): InspectorSource & { reads: number } {
  const source = {
    name: "store",
    reads: 0,
    listSessions: async () => [{ sessionId: "chat", count: messages.length }],
    read: async (id: string) => {
      source.reads++;
      return id === "chat" ? messages.slice() : undefined;
    },
    count: async (id: string) => (id === "chat" ? messages.length : undefined),
  };
  return source;
}

const emptyAnalysis = (messages: Message[]): SessionAnalysis => ({ module: "test", model: "gpt-4o", turns: messages.filter((m) => m.role === "assistant").map((_, i) => ({ turn: i + 1, messageIndex: 0, historyMessages: 0, historyTokens: 0, windowMessages: 0, windowTokens: 0, budget: 1, prefixKept: 1, instructionTokens: 0, historyKeptTokens: 0, toolTokens: 0 })) });

/** An analyzer the test releases by hand, recording every run and its control. */
function gatedAnalyzer() {
  const runs: Array<{ messages: number; control: AnalysisControl | undefined; release: () => void }> = [];
  const analyze: SessionAnalyzer = (messages, _id, _simulation, control) =>
    new Promise((resolve) => {
      runs.push({ messages: messages.length, control, release: () => resolve({ analysis: emptyAnalysis(messages) }) });
    });
  return { analyze, runs };
}

describe("the Inspector's analysis", () => {
  it("8 concurrent requests for one unchanged session run the analyzer once and all get its result", async () => {
    const messages = conversation(3);
    const { analyze, runs } = gatedAnalyzer();
    const server = await startServer({ port: 0, inspector: { sources: [arraySource(messages)], analyze } });
    running.push(server);
    const answers = Array.from({ length: 8 }, () => fetch(`${server.url}/inspector/api/analysis?source=store&id=chat`).then((r) => r.json() as Promise<{ analysis?: SessionAnalysis }>));
    await expect.poll(() => runs.length).toBe(1);
    // Give the other seven time to arrive at the shared run.
    await new Promise((resolve) => setTimeout(resolve, 100));
    runs[0]!.release();
    const results = await Promise.all(answers);
    expect(runs).toHaveLength(1);
    expect(results.every((r) => r.analysis?.turns.length === 3)).toBe(true);
    // Kept while the session is unchanged.
    expect(((await (await fetch(`${server.url}/inspector/api/analysis?source=store&id=chat`)).json()) as { analysis?: SessionAnalysis }).analysis?.turns).toHaveLength(3);
    expect(runs).toHaveLength(1);
  });

  it("runs again once the session changed, and aborts a run of the older content still under way", async () => {
    const messages = conversation(2);
    const { analyze, runs } = gatedAnalyzer();
    const inspector = createInspector({ sources: [arraySource(messages)], analyze });
    const first = inspector.analysis("store", "chat");
    await expect.poll(() => runs.length).toBe(1);
    messages.push(...conversation(3).slice(4));
    const second = inspector.analysis("store", "chat");
    await expect.poll(() => runs.length).toBe(2);
    expect(runs[0]!.control?.signal.aborted).toBe(true);
    expect(runs[1]!.control?.signal.aborted).toBe(false);
    runs[0]!.release();
    runs[1]!.release();
    expect((await second).analysis?.turns).toHaveLength(3);
    await first;
    expect((await inspector.analysis("store", "chat")).analysis?.turns).toHaveLength(3);
    expect(runs).toHaveLength(2);
    inspector.close();
  });

  it("answers a request that does not wait (wait=false) with the progress while the analysis runs, then with the result", async () => {
    const messages = conversation(4);
    const { analyze, runs } = gatedAnalyzer();
    const source = arraySource(messages);
    const server = await startServer({ port: 0, inspector: { sources: [source], analyze } });
    running.push(server);
    const url = `${server.url}/inspector/api/analysis?source=store&id=chat&wait=false`;
    expect(await (await fetch(url)).json()).toEqual({ analysisProgress: { turnsDone: 0, turns: 4 } });
    await expect.poll(() => runs.length).toBe(1);
    const reads = source.reads;
    runs[0]!.control!.onProgress(3, 4);
    expect(await (await fetch(url)).json()).toEqual({ analysisProgress: { turnsDone: 3, turns: 4 } });
    // A poll of a run under way looks at the session's count, not at its messages.
    expect(source.reads).toBe(reads);
    runs[0]!.release();
    await expect.poll(async () => ((await (await fetch(url)).json()) as { analysis?: SessionAnalysis }).analysis?.turns.length).toBe(4);
    expect(runs).toHaveLength(1);
  });
});
