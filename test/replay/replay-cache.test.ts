/**
 * `amplifier-ts replay --cache` and the drift columns, end to end through the CLI on generated
 * transcripts whose numbers are checked against the simulator's rules.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { runReplay } from "../../src/replay/run-replay.js";
import { cli, SAMPLE } from "./support.js";

const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `w${(i * 13 + seed) % 991}`).join(" ");

async function transcript(lines: object[]): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), "amplifier-replay-cache-")), "t.jsonl");
  await writeFile(file, lines.map((l) => JSON.stringify(l)).join("\n"));
  return file;
}

describe("replay --cache", () => {
  it("a conversation that fits the budget: each turn reads the previous request's prefix, floored to 128-token steps", async () => {
    const lines = [{ role: "system", content: words(900, 1) }];
    for (let i = 0; i < 4; i++) lines.push({ role: "user", content: words(150, i) }, { role: "assistant", content: words(60, i + 9) });
    const file = await transcript(lines);
    const { turns, summary } = await runReplay({ transcript: file, cache: true });
    const counter = getTokenCounter("gpt-4o");
    expect(turns[0]!.cache!.cachedTokens).toBe(0);
    for (const turn of turns.slice(1)) {
      // The previous window (without its priming) is this window's prefix.
      const previous = turns[turn.turn - 2]!;
      const shared = previous.windowTokens - counter.replyPriming;
      const expected = shared < 1_024 ? 0 : 1_024 + Math.floor((shared - 1_024) / 128) * 128;
      expect(turn.cache!.cachedTokens).toBe(expected);
      expect(turn.cache!.inputTokens).toBe(turn.windowTokens);
    }
    expect(summary.cache!.hitRate).toBeCloseTo(summary.cache!.cachedTokens / summary.cache!.inputTokens, 12);
    expect(summary.cache!.costUsd).toBeLessThan(summary.cache!.uncachedCostUsd!);
    // Everything fits: the naive tail window is the same window.
    expect(summary.cache!.tail.cachedTokens).toBe(summary.cache!.cachedTokens);
  });

  it("prints the cache table and summary; the default window on the sample session meets the ≥ 90 % target", async () => {
    const run = await cli(["replay", SAMPLE, "--cache", "--every", "100"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Prompt cache (simulated)");
    const served = /served from cache\s+[\d,]+ \(([\d.]+)%\)/.exec(run.stdout);
    expect(Number(served![1])).toBeGreaterThanOrEqual(90);
    const tail = /naive tail window\s+[\d,]+ input tokens, ([\d.]+)% from cache/.exec(run.stdout);
    expect(Number(tail![1])).toBeLessThan(Number(served![1]));
    expect(run.stdout).toMatch(/list prices per 1M tokens as of \d{4}-\d{2}-\d{2}/);
  });
});

describe("replay shows the drift when the transcript carries the bill", () => {
  it("counted vs billed per turn and the calibrated factor", async () => {
    const counter = getTokenCounter("claude-sonnet-4", { safetyFactor: 1 });
    const lines: { role: string; content: string; metadata?: object }[] = [{ role: "system", content: "Be brief." }];
    const history: { role: "system" | "user" | "assistant"; content: string }[] = [{ role: "system", content: "Be brief." }];
    for (let i = 0; i < 5; i++) {
      const user = { role: "user" as const, content: words(80, i) };
      lines.push(user);
      history.push(user);
      // The provider billed 10 % more than the exact-encoding count of the request.
      const billed = Math.ceil(counter.countRequest(history) * 1.1);
      const answer = { role: "assistant" as const, content: words(20, i + 3) };
      lines.push({ ...answer, metadata: { usage: { inputTokens: billed } } });
      history.push(answer);
    }
    const file = await transcript(lines);
    const { turns } = await runReplay({ transcript: file, model: "claude-sonnet-4", budget: 50_000, config: { session: { context: { module: "context-simple", config: { model: "claude-sonnet-4" } } } } });
    expect(turns.map((t) => t.usage?.factor)).toEqual([1.2, 1.2, 1.12, 1.12, 1.12]);
    for (const t of turns) expect(t.usage!.ratio).toBeCloseTo(1.1, 2);
    const run = await cli(["replay", file, "--model", "claude-sonnet-4"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Counts vs bill");
    expect(run.stdout).toMatch(/FACTOR/);
  });
});
