import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { LocalMemory } from "@amplifier-ts/module-memory-local";
import { startServer, type RunningServer } from "@amplifier-ts/server";
import { launchChromium, watchPage } from "./browser.js";

/**
 * The Inspector page in real Chromium, opened at an address it has no view for — a malformed
 * %-escape in a shared link, a path that is not a page: it says "not found" and why, with a way
 * back to the list, instead of throwing and staying blank.
 */
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  const memory = new LocalMemory();
  await memory.createSession({ appName: "agent", userId: "u", sessionId: "s1" });
  await memory.addEvent("s1", memory.createEvent("user_message", "hello"));
  server = await startServer({ memory, port: 0, inspector: { sources: [] } });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it("a malformed or unknown address shows a 'not found' view with its reason and a link back; no script error", async () => {
  const page = await browser.newPage();
  const watch = watchPage(page);
  for (const [hash, reason] of [
    ["#/s/%E0%A4%A/x", "malformed %-escape"],
    ["#/no/such/page", "no such address"],
    ["#/s/memory/s1/t/zero", "is not a turn"],
  ] as const) {
    await page.goto(`${server.url}/${hash}`);
    const view = page.locator("#not-found");
    await view.waitFor();
    expect(await view.locator("h1").innerText(), hash).toBe("Not found");
    expect(await view.innerText(), hash).toContain(reason);
    expect(await view.locator("code").innerText(), hash).toBe(hash);
  }
  await page.locator("#not-found a", { hasText: "the sessions" }).click();
  await page.locator("tr.session-row").first().waitFor();
  expect(await page.locator("tr.session-row").innerText()).toContain("s1");
  // A later hash change to a malformed address is handled the same way (the hashchange path).
  await page.evaluate("location.hash = '#/s/%E0%A4%A/y'");
  await page.locator("#not-found").waitFor();
  expect(watch.errors).toEqual([]);
  expect(watch.violations).toEqual([]);
  await page.close();
});
