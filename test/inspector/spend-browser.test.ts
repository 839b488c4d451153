import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerModel } from "../../modules/tokens/index.js";
import { writeHtmlReport } from "../../src/replay/html-report.js";
import { ARTIFACTS, launchChromium, watchPage } from "./browser.js";

/**
 * Issue 29 §2 in Chromium: the Inspector's Spend panel shows what the session spent on the
 * conversation, on compaction and on cache writes, apart — the replay's figures (report file, with
 * the prompt cache simulated), the compaction's checked by hand.
 */
const MODEL = "inspector-spend-test-claude";
const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `w${(i * 13 + seed) % 991}`).join(" ");

let folder = "";
let browser: Browser;
let undo: () => void;
beforeAll(async () => {
  // $ per million: input 3, cached 0.3, cache write 3.75, output 15.
  undo = registerModel(MODEL, { contextWindow: 200_000, maxOutputTokens: 8_000, encoding: "o200k_base", family: "anthropic", provider: "test", safetyFactor: 1, prices: { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, asOf: "2026-11-28", source: "test" } });
  folder = mkdtempSync(join(tmpdir(), "inspector-spend-"));
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  undo?.();
  await browser?.close();
  if (folder !== "") rmSync(folder, { recursive: true, force: true });
});

describe("the Spend panel", () => {
  it("shows conversation, compaction and cache writes apart, the total and compaction's share", async () => {
    const lines: object[] = [{ role: "system", content: words(1_500, 1) }];
    for (let i = 0; i < 6; i++) {
      lines.push({ role: "user", content: words(200, i) });
      lines.push({ role: "assistant", content: words(80, i + 9), ...(i === 3 ? { metadata: { usage: { inputTokens: 3_000, compaction: { iterations: 1, inputTokens: 50_000, outputTokens: 800 } } } } : {}) });
    }
    const transcript = join(folder, "priced.jsonl");
    writeFileSync(transcript, lines.map((l) => JSON.stringify(l)).join("\n"));
    const out = join(folder, "priced.html");
    const replay = await writeHtmlReport(transcript, out, { model: MODEL, cache: true, config: { session: { context: { module: "context-simple", config: { model: MODEL } } } } });
    const spend = replay.summary.spend!;
    expect(spend.cacheWrites.tokens).toBeGreaterThan(0);

    const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
    const watch = watchPage(page);
    await page.goto(pathToFileURL(out).href);
    await page.locator("#spend tbody tr").first().waitFor();
    const cells = async (part: string) => page.locator(`#spend tr.spend-${part} td`).allInnerTexts();
    const int = (n: number) => n.toLocaleString("en");
    const conversation = await cells("conversation");
    expect(conversation.slice(0, 3)).toEqual(["conversation", int(spend.conversation.inputTokens + spend.conversation.outputTokens), `$${spend.conversation.usd!.toFixed(4)}`]);
    expect(conversation[3]).toBe(`${int(spend.conversation.inputTokens)} in (${int(spend.conversation.cacheReadTokens)} from cache), ${int(spend.conversation.outputTokens)} out`);
    // 50,000 × $3/M + 800 × $15/M = $0.1620
    expect(await cells("compaction")).toEqual(["compaction", "50,800", "$0.1620", "0 summarizer calls, 1 provider compaction: 50,000 in, 800 out"]);
    expect((await cells("cache-writes")).slice(0, 3)).toEqual(["cache writes", int(spend.cacheWrites.tokens), `$${((spend.cacheWrites.tokens * 3.75) / 1e6).toFixed(4)}`]);
    const total = await cells("total");
    expect(total[2]).toBe(`$${spend.totalUsd!.toFixed(4)}`);
    expect(total[3]).toBe(`compaction's share: ${((0.162 / spend.totalUsd!) * 100).toFixed(1)} % of cost, ${(spend.compactionTokenShare * 100).toFixed(1)} % of tokens`);
    await page.screenshot({ path: join(ARTIFACTS, "spend.png") });
    expect(watch.errors).toEqual([]);
    expect(watch.violations).toEqual([]);
    await page.close();
  });
});
