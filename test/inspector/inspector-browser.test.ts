import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HistoryStore, Message } from "@amplifier-ts/contracts";
import { historyStoreSource, liveSessions } from "@amplifier-ts/inspector";
import { LocalMemory } from "@amplifier-ts/module-memory-local";
import { createHistoryStore, parseStoreUrl } from "@amplifier-ts/stores";
import { startServer, type RunningServer } from "@amplifier-ts/server";
import { analyzeSession } from "../../src/replay/session-analysis.js";
import { writeHtmlReport } from "../../src/replay/html-report.js";
import { ARTIFACTS, assertNothingRan, HOSTILE, hostileSession, launchChromium, watchPage } from "./browser.js";

/**
 * The Inspector in real Chromium against a listening server: a recorded session (the first 140
 * messages of examples/sample-session.jsonl in a JSONL folder, windows at a 6,000-token budget so
 * that the cut drops messages), a hostile session, a live in-process session, a memory with events.
 */
const BUDGET = 6_000;
const SAMPLE = readFileSync(new URL("../../examples/sample-session.jsonl", import.meta.url), "utf8").split("\n").filter((l) => l.trim() !== "").slice(0, 140);

let folder = "";
let store: HistoryStore;
let server: RunningServer;
let tokenServer: RunningServer;
let browser: Browser;
const live = liveSessions();
const liveMessages: Message[] = [];

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "inspector-browser-"));
  writeFileSync(join(folder, "recorded.jsonl"), `${SAMPLE.join("\n")}\n`);
  writeFileSync(join(folder, "hostile.jsonl"), `${hostileSession().map((m) => JSON.stringify(m)).join("\n")}\n`);
  store = await createHistoryStore(parseStoreUrl(folder));
  const memory = new LocalMemory();
  await memory.createSession({ appName: "agent", userId: "u", sessionId: "hostile" });
  await memory.addEvent("hostile", { ...memory.createEvent("user_message", HOSTILE.event), timestamp: new Date(Date.UTC(2026, 10, 2, 10, 0, 2)) });
  liveMessages.push(...(JSON.parse(`[${SAMPLE.slice(0, 3).join(",")}]`) as Message[]));
  live.add("running", { getMessages: async () => liveMessages.slice() });
  const inspector = {
    sources: [historyStoreSource(store, "jsonl"), live],
    analyze: (messages: Message[]) => analyzeSession(messages, { budget: BUDGET }),
    pollMs: 100,
  };
  server = await startServer({ memory, port: 0, inspector });
  tokenServer = await startServer({ memory, port: 0, inspector, token: "s3cret-token" });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await tokenServer?.close();
  await store?.close();
  if (folder !== "") rmSync(folder, { recursive: true, force: true });
});

async function open(url: string): Promise<{ page: Page; watch: ReturnType<typeof watchPage> }> {
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  const watch = watchPage(page);
  await page.goto(url);
  return { page, watch };
}

describe("the Inspector page in Chromium", () => {
  it("lists the sessions with counts, filters them, opens a session with its charts and a turn with its kept/dropped reasons", async () => {
    const { page, watch } = await open(`${server.url}/`);
    const rows = page.locator("tr.session-row");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(3);
    const recorded = page.locator("tr.session-row", { hasText: "recorded" });
    expect(await recorded.locator("td").allInnerTexts()).toEqual(["recorded", "jsonl", "140", "0", expect.stringMatching(/UTC$/), ""]);
    expect(await page.locator("tr.session-row", { hasText: "hostile" }).locator("td").nth(3).innerText()).toBe("1");
    expect(await page.locator("tr.session-row", { hasText: "running" }).innerText()).toContain("live");
    await page.fill("#filter", "record");
    await expect.poll(() => rows.count()).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, "sessions.png") });

    await recorded.locator("a").click();
    await page.locator("#chart-tokens canvas").first().waitFor();
    expect(await page.locator("#session-facts").innerText()).toMatch(/^140 messages · 0 memory events · \d+ turns · no record of what was sent: windows are simulated · simulation: context-persistent · gpt-4o · budget 6,000$/);
    expect(await page.locator("#chart-prefix canvas").count()).toBeGreaterThan(0);
    const legend = await page.locator("#chart-tokens").innerText();
    expect(legend).toContain("window tokens");
    expect(legend).toContain("budget");
    expect(await page.locator("#timeline li.entry").count()).toBe(140);
    await page.screenshot({ path: join(ARTIFACTS, "session.png"), fullPage: false });

    const turns = page.locator("#turns a.turn-link");
    const last = await turns.count();
    await turns.nth(last - 1).click();
    await page.locator("#turn").waitFor();
    expect(await page.locator("#turn h2").innerText()).toContain(`Turn ${last} of ${last}`);
    const kept = page.locator("#turn tbody tr.decision-kept").first();
    expect(await kept.locator("td").nth(4).innerText()).toBe("system/developer instruction: always kept, first");
    const dropped = page.locator("#turn tbody tr.decision-dropped");
    expect(await dropped.count()).toBeGreaterThan(0);
    expect(await dropped.first().locator("td").nth(4).innerText()).toBe("older than the window's cut (budget)");
    // Without a record the turn view says it shows a simulation, and the dropped run is one folded line.
    expect(await page.locator("#no-record").innerText()).toContain("the window below is a simulation");
    expect(await dropped.first().locator("td").nth(3).innerText()).toBe("over budget");
    expect(await page.locator("#turn tr.fold-row").count()).toBeGreaterThan(0);
    expect(await page.locator("#turn tbody tr.decision-kept", { hasText: "recent enough to fit the budget" }).count()).toBeGreaterThan(0);
    const bar = await page.locator("#token-bar").getAttribute("aria-label");
    expect(bar).toMatch(/^instructions \d+, history kept \d+, tool definitions 0, free budget \d+$/);
    await page.locator("button.chip.dropped").click();
    expect(await page.locator("#turn tbody tr").count()).toBe(await page.locator("#turn tbody tr.decision-dropped").count());
    await page.locator("#turn").screenshot({ path: join(ARTIFACTS, "turn.png") });
    expect(watch.violations).toEqual([]);
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it("shows a hostile session's messages, tool calls and memory events as text, and runs none of them", async () => {
    const { page, watch } = await open(`${server.url}/#/s/jsonl/hostile`);
    await page.locator("#timeline li.entry").first().waitFor();
    const text = await page.locator("#timeline").innerText();
    expect(text).toContain(HOSTILE.img);
    expect(text).toContain(HOSTILE.script);
    expect(text).toContain(HOSTILE.toolName);
    expect(text).toContain(HOSTILE.event);
    expect(text).toContain("javascript:window.__pwned='a'");
    await page.locator("#turns a.turn-link").nth(1).click();
    await page.locator("#turn tbody tr").first().waitFor();
    expect(await page.locator("#turn").innerText()).toContain("Look at this: <img src=x");
    await page.waitForTimeout(300);
    await assertNothingRan(page, watch);
    expect(watch.violations).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, "hostile.png"), fullPage: true });
    await page.close();
  });

  it("shows a running session's new turns without a reload (server-sent events)", async () => {
    const { page } = await open(`${server.url}/#/s/live/running`);
    await page.locator("#session-facts").waitFor();
    await expect.poll(() => page.locator("#session-facts").innerText(), { timeout: 15_000 }).toMatch(/^3 messages · 0 memory events · 1 turns/);
    await page.evaluate("window.__sameDocument = true");
    liveMessages.push(...(JSON.parse(`[${SAMPLE.slice(3, 5).join(",")}]`) as Message[]));
    await expect.poll(() => page.locator("#session-facts").innerText(), { timeout: 15_000 }).toMatch(/^5 messages · 0 memory events · 2 turns/);
    expect(await page.evaluate("window.__sameDocument")).toBe(true);
    await page.close();
  });

  it("with a token: / in a fresh browser is a 401 page (no app, no data request); /?token=… signs in with an HttpOnly cookie and lands on / without the token; the data and the live stream follow", async () => {
    // A fresh browser (newPage = a new context: no cookie), as a person who only has the address.
    const denied = await open(`${tokenServer.url}/`);
    const requests: string[] = [];
    denied.page.on("request", (request) => requests.push(request.url()));
    await denied.page.reload();
    expect(await denied.page.title()).toBe("amplifier-ts Inspector: token needed");
    expect(await denied.page.locator("body").innerText()).toContain("/?token=<token>");
    expect(await denied.page.locator("#app").count()).toBe(0);
    expect(await denied.page.locator("tr.session-row").count()).toBe(0);
    expect(requests).toEqual([`${tokenServer.url}/`]); // the page only: no script, no data route
    await denied.page.close();
    // The fragment of the first Inspector version is not a way in either.
    const fragment = await open(`${tokenServer.url}/#token=s3cret-token`);
    expect(await fragment.page.title()).toBe("amplifier-ts Inspector: token needed");
    await fragment.page.close();

    const { page, watch } = await open(`${tokenServer.url}/?token=s3cret-token`);
    await page.locator("tr.session-row").first().waitFor();
    expect(await page.locator("tr.session-row").count()).toBe(3);
    expect(page.url()).toBe(`${tokenServer.url}/`);
    expect(await page.evaluate("document.cookie")).toBe(""); // HttpOnly: the page's code never sees it
    const cookies = await page.context().cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: `amplifier_inspector_${new URL(tokenServer.url).port}`, path: "/", httpOnly: true, sameSite: "Strict", secure: false });
    expect(cookies[0]!.value).not.toContain("s3cret-token");
    await page.locator("tr.session-row", { hasText: "recorded" }).locator("a").click();
    await page.locator("#chart-tokens canvas").first().waitFor();
    // The live stream carries the cookie too: a new message shows without a reload.
    await page.goto(`${tokenServer.url}/#/s/live/running`);
    const before = liveMessages.length;
    await expect.poll(() => page.locator("#session-facts").innerText(), { timeout: 15_000 }).toMatch(new RegExp(`^${before} messages`));
    await page.waitForTimeout(300);
    liveMessages.push({ role: "user", content: "one more", metadata: { id: "browser-token-u" } });
    await expect.poll(() => page.locator("#session-facts").innerText(), { timeout: 15_000 }).toMatch(new RegExp(`^${before + 1} messages`));
    expect(watch.violations).toEqual([]);
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it("with a token: the 401 page's form signs in with the right token and refuses a wrong one; an open page whose cookie is gone says how to sign in again; a route survives the sign-in redirect", async () => {
    const { page, watch } = await open(`${tokenServer.url}/`);
    await page.fill("input[name=token]", "not-the-token");
    await page.click("button[type=submit]");
    await expect.poll(() => page.locator("body").innerText()).toContain("That token is not this server's.");
    expect(await page.context().cookies()).toEqual([]);
    await page.fill("input[name=token]", "s3cret-token");
    await page.click("button[type=submit]");
    await page.locator("tr.session-row").first().waitFor();
    expect(page.url()).toBe(`${tokenServer.url}/`);
    // The cookie gone (the server restarted, say): the open page says how to sign in again.
    await page.context().clearCookies();
    await page.evaluate("location.hash = '#/s/jsonl/recorded'");
    await page.locator("#token-needed").waitFor();
    expect(await page.locator("#token-needed").innerText()).toContain("/?token=<token>");
    // A link with the token and a route: the route survives the redirect, the token does not.
    await page.goto(`${tokenServer.url}/?token=s3cret-token#/s/jsonl/hostile`);
    await page.locator("#timeline li.entry").first().waitFor();
    expect(page.url()).toBe(`${tokenServer.url}/#/s/jsonl/hostile`);
    expect(watch.violations).toEqual([]);
    await page.close();
  });
});

describe("replay --html: the report file in Chromium", () => {
  it("opens from disk with the session, a turn's reasons and the charts, and runs none of a hostile session's content", async () => {
    const recorded = join(folder, "recorded.jsonl");
    const out = join(folder, "recorded.html");
    await writeHtmlReport(recorded, out, { budget: BUDGET });
    const { page, watch } = await open(`${pathToFileURL(out).href}#/s/transcript/recorded/t/20`);
    await page.locator("#turn tbody tr").first().waitFor();
    expect(await page.locator("#session-facts").innerText()).toMatch(/^140 messages/);
    expect(await page.locator("#turn tbody tr.decision-dropped").first().locator("td").nth(4).innerText()).toBe("older than the window's cut (budget)");
    // A report file has no server to replay under another budget: no simulation form, and it says the window is a simulation.
    expect(await page.locator("#simulation-control").count()).toBe(0);
    expect(await page.locator("#no-record").count()).toBe(1);
    // Turn 20 at this budget: the window starts with a placeholder for the omitted history, which no stored message is.
    expect(await page.locator("#synthetic-note").innerText()).toContain("1 message the history does not");
    expect(await page.locator("#chart-tokens canvas").count()).toBeGreaterThan(0);
    expect(watch.violations).toEqual([]);
    expect(watch.errors).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, "report.png") });
    await page.close();

    const hostileOut = join(folder, "hostile.html");
    await writeHtmlReport(join(folder, "hostile.jsonl"), hostileOut, {});
    const hostile = await open(pathToFileURL(hostileOut).href);
    await hostile.page.locator("#timeline li.entry").first().waitFor();
    const text = await hostile.page.locator("#timeline").innerText();
    expect(text).toContain(HOSTILE.img);
    expect(text).toContain(HOSTILE.script);
    expect(text).toContain(HOSTILE.toolName);
    await hostile.page.waitForTimeout(300);
    await assertNothingRan(hostile.page, hostile.watch);
    expect(hostile.watch.violations).toEqual([]);
    await hostile.page.screenshot({ path: join(ARTIFACTS, "report-hostile.png"), fullPage: true });
    await hostile.page.close();
  });
});
