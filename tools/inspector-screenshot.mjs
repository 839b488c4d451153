// Re-makes docs/inspector.png (the README's Inspector picture) from the built page.
//
//   npm run build && node tools/inspector-screenshot.mjs [turn]
//
// The sample session (examples/sample-session.jsonl) is played as an agent would have run it:
// each message added through context-persistent, and before each assistant message the window
// asked with a fixed budget (14,000), model (gpt-4o-mini) and three tools — so the session carries
// the context manager's records of what was sent. The server reads the folder read-only, as
// `amplifier-ts serve --sessions` does; Chromium (/usr/bin/chromium, or AMPLIFIER_CHROMIUM) opens
// the turn's "what was sent" view under the charts, and the picture is written to docs/inspector.png.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { Coordinator } from "../core/dist/index.js";
import { mount } from "../modules/context-persistent/dist/index.js";
import { createHistoryStore } from "../modules/stores/dist/index.js";
import { historyStoreSource } from "../modules/inspector/dist/index.js";
import { startServer } from "../modules/server/dist/index.js";
import { analyzeSession } from "../dist/index.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const TURN = Number(process.argv[2] ?? 150);
const BUDGET = 14_000;
const MODEL = "gpt-4o-mini";
const tool = (name, description) => ({ type: "function", function: { name, description, parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } });
const TOOLS = [tool("read_file", "Read a file of the repository"), tool("edit_file", "Replace a range of lines in a file"), tool("run_tests", "Run the test suite, or the tests under a path")];

const folder = mkdtempSync(join(tmpdir(), "inspector-screenshot-"));
const sessions = join(folder, "sessions");
try {
  const messages = readFileSync(join(ROOT, "examples/sample-session.jsonl"), "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
  const coordinator = new Coordinator({ sessionId: "sample-session" });
  const context = await mount(coordinator, { storagePath: sessions, sessionId: "sample-session", model: MODEL, fsync: "never" });
  context.setTools(TOOLS);
  for (const message of messages) {
    if (message.role === "assistant") await context.getMessagesForRequest(BUDGET);
    await context.addMessage(message);
  }
  await coordinator.cleanup();

  const store = await createHistoryStore({ type: "jsonl", storagePath: sessions, readOnly: true });
  const server = await startServer({ port: 0, inspector: { sources: [historyStoreSource(store, "jsonl")], analyze: (m, sessionId, simulation) => analyzeSession(m, { name: sessionId, cache: true, ...simulation }) } });
  const browser = await chromium.launch({ executablePath: process.env.AMPLIFIER_CHROMIUM ?? "/usr/bin/chromium", headless: true, args: process.getuid?.() === 0 ? ["--no-sandbox"] : [] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 }, deviceScaleFactor: 1 });
    await page.goto(`${server.url}/#/s/jsonl/sample-session/t/${TURN}`);
    await page.locator("#sent-facts").waitFor({ timeout: 60_000 });
    // The simulation's charts (prefix kept, cached share) come with the analysis: wait for it.
    await page.locator("#chart-prefix canvas").first().waitFor({ timeout: 120_000 });
    await page.waitForFunction(() => document.getElementById("analysis-pending") === null, undefined, { timeout: 120_000 });
    await page.evaluate(() => window.scrollTo(0, 0));
    // From the top of the page to the folded run of dropped messages under the window's messages.
    const fold = await page.locator("#turn tr.fold-row").last().boundingBox();
    const bottom = Math.ceil((fold?.y ?? 1500) + (fold?.height ?? 0) + 16);
    await page.screenshot({ path: join(ROOT, "docs/inspector.png"), fullPage: true, clip: { x: 0, y: 0, width: 1280, height: bottom } });
    console.log(`docs/inspector.png: turn ${TURN} of the sample session, ${await page.locator("#sent-facts").innerText()}`);
  } finally {
    await browser.close();
    await server.close();
    await store.close();
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
