/**
 * In real Chromium: a turn's address opened while the session's analysis still runs shows how far
 * the replay is ("turn 2 of 4"), not "no turn 3"; the turn's window appears once it is done
 * (issue 24, item 4). The analyzer here is released by the test, so nothing depends on speed.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import type { AnalysisControl, InspectorSource, SessionAnalysis, SessionAnalyzer } from "@amplifier-ts/inspector";
import { startServer, type RunningServer } from "@amplifier-ts/server";
import { launchChromium, watchPage } from "./browser.js";

const messages: Message[] = Array.from({ length: 4 }, (_, i) => [
  { role: "user", content: `question ${i}`, metadata: { id: `u${i}` } } as Message,
  { role: "assistant", content: `answer ${i}`, metadata: { id: `a${i}` } } as Message,
]).flat();

const source: InspectorSource = { name: "store", listSessions: async () => [{ sessionId: "chat", count: messages.length }], read: async (id) => (id === "chat" ? messages.slice() : undefined), count: async (id) => (id === "chat" ? messages.length : undefined) };

const analysis: SessionAnalysis = {
  module: "test",
  model: "gpt-4o",
  turns: [1, 3, 5, 7].map((messageIndex, i) => ({ turn: i + 1, messageIndex, historyMessages: messageIndex, historyTokens: 10 * messageIndex, windowMessages: messageIndex, windowTokens: 10 * messageIndex, budget: 1_000, prefixKept: 1, instructionTokens: 0, historyKeptTokens: 10 * messageIndex, toolTokens: 0 })),
};

let control: AnalysisControl | undefined;
let release: () => void = () => undefined;
const analyze: SessionAnalyzer = (_messages, _id, _simulation, given) =>
  new Promise((resolve) => {
    control = given;
    release = () => resolve({ analysis, tokens: messages.map(() => 5) });
  });

let server: RunningServer;
let browser: Browser;
beforeAll(async () => {
  server = await startServer({ port: 0, inspector: { sources: [source], analyze } });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  release();
  await browser?.close();
  await server?.close();
});

describe("the Inspector page while an analysis runs", () => {
  it("shows the replay's progress at a turn's address, then the turn once the analysis is done", async () => {
    const page = await browser.newPage();
    const watch = watchPage(page);
    await page.goto(`${server.url}/#/s/store/chat/t/3`);
    await expect.poll(() => control !== undefined, { timeout: 30_000 }).toBe(true);
    control!.onProgress(2, 4);
    const pending = page.locator("#analysis-pending");
    await expect.poll(() => pending.innerText(), { timeout: 30_000 }).toContain("turn 2 of 4");
    expect(await page.locator("#turn").innerText()).not.toContain("no turn 3");
    release();
    await expect.poll(() => pending.count(), { timeout: 30_000 }).toBe(0);
    await expect.poll(() => page.locator("#turn").innerText(), { timeout: 30_000 }).toContain("3");
    expect(await page.locator("#turn").innerText()).not.toContain("being computed");
    expect(watch.errors).toEqual([]);
    await page.close();
  });
});
