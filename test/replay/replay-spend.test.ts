/**
 * Issue 29 §2: `replay` (and `replay --cache`) report what the session spent on the conversation,
 * on compaction and on cache writes, apart; the figures are recomputed here from the turns.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerModel } from "../../modules/tokens/index.js";
import { formatReplay } from "../../src/replay/format-replay.js";
import { runReplay } from "../../src/replay/run-replay.js";

const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `w${(i * 13 + seed) % 991}`).join(" ");
// $ per million: input 3, cached 0.3, cache write 3.75, output 15.
const MODEL = "replay-spend-test-claude";
let undo: () => void;
beforeAll(() => {
  undo = registerModel(MODEL, { contextWindow: 200_000, maxOutputTokens: 8_000, encoding: "o200k_base", family: "anthropic", provider: "test", safetyFactor: 1, prices: { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, asOf: "2026-11-28", source: "test" } });
});
afterAll(() => undo());

async function transcript(): Promise<string> {
  const lines: object[] = [{ role: "system", content: words(1_500, 1) }];
  for (let i = 0; i < 6; i++) {
    lines.push({ role: "user", content: words(200, i) });
    // The fourth answer carries a provider compaction of 50,000 in / 800 out.
    lines.push({ role: "assistant", content: words(80, i + 9), ...(i === 3 ? { metadata: { usage: { inputTokens: 3_000, compaction: { iterations: 1, inputTokens: 50_000, outputTokens: 800 } } } } : {}) });
  }
  const file = join(await mkdtemp(join(tmpdir(), "amplifier-replay-spend-")), "t.jsonl");
  await writeFile(file, lines.map((l) => JSON.stringify(l)).join("\n"));
  return file;
}

describe("replay reports the spend three ways", () => {
  it("with --cache: conversation (reads apart), compaction, cache writes — each recomputed from the turns, and compaction's share", async () => {
    const { turns, summary } = await runReplay({ transcript: await transcript(), model: MODEL, cache: true, config: { session: { context: { module: "context-simple", config: { model: MODEL } } } } });
    const spend = summary.spend!;
    const sum = (pick: (t: (typeof turns)[number]) => number) => turns.reduce((s, t) => s + pick(t), 0);
    const read = sum((t) => t.cache!.cachedTokens);
    const written = sum((t) => t.cache!.writeTokens);
    const input = sum((t) => t.cache!.inputTokens);
    const output = sum((t) => t.cache!.outputTokens);
    expect(written).toBeGreaterThan(0); // Anthropic rule: breakpoint prefixes are written
    expect(spend.conversation).toMatchObject({ inputTokens: input - written, cacheReadTokens: read, outputTokens: output });
    expect(spend.conversation.usd).toBeCloseTo(((input - read - written) * 3 + read * 0.3 + output * 15) / 1e6, 12);
    expect(spend.cacheWrites.tokens).toBe(written);
    expect(spend.cacheWrites.usd).toBeCloseTo((written * 3.75) / 1e6, 12);
    // 50,000 × 3 + 800 × 15 = 162,000 µ$
    expect(spend.compaction).toMatchObject({ providerCompactions: 1, summarizerCalls: 0, inputTokens: 50_000, outputTokens: 800 });
    expect(spend.compaction.usd).toBeCloseTo(0.162, 12);
    // The three parts add up to the simulated cache's cost plus the compaction.
    expect(spend.totalUsd).toBeCloseTo(summary.cache!.costUsd! + 0.162, 12);
    expect(spend.compactionShare).toBeCloseTo(0.162 / spend.totalUsd!, 12);
    const text = formatReplay({ summary, turns }, {});
    expect(text).toMatch(/spent: conversation\s+[\d,]+ in \([\d,]+ from cache\) \+ [\d,]+ out = \$\d+\.\d{4}/);
    expect(text).toMatch(/spent: compaction\s+0 summarizer calls, 1 provider compaction: 50,000 in \+ 800 out = \$0\.1620/);
    expect(text).toMatch(/spent: cache writes\s+[\d,]+ tokens = \$\d+\.\d{4}/);
    expect(text).toMatch(/spent: total\s+\$\d+\.\d{4}; compaction's share [\d.]+% of cost/);
  });

  it("without --cache: every input token priced uncached, no cache writes", async () => {
    const { turns, summary } = await runReplay({ transcript: await transcript(), model: MODEL, config: { session: { context: { module: "context-simple", config: { model: MODEL } } } } });
    const spend = summary.spend!;
    const input = turns.reduce((s, t) => s + t.windowTokens, 0);
    expect(spend.cacheSimulated).toBe(false);
    expect(spend.conversation.inputTokens).toBe(input);
    expect(spend.conversation.cacheReadTokens).toBe(0);
    expect(spend.cacheWrites).toEqual({ tokens: 0, usd: 0 });
    expect(spend.conversation.usd).toBeCloseTo((input * 3 + spend.conversation.outputTokens * 15) / 1e6, 12);
    expect(formatReplay({ summary, turns }, {})).toContain("not simulated (--cache)");
  });
});
