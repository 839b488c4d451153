/**
 * Issue 19: agent sessions must not pay for recall. On the recorded agent session
 * (examples/sample-session.jsonl, 54 prompts, 272 model calls) at gpt-4o's budget, the share of each
 * window that starts the next one unchanged (what the provider's prompt cache reuses) stays
 * ≥ 95 % with recall in the pipeline. Before recall kept its plan across prompts that ask nothing
 * new of the past, every prompt re-planned and it was 81.8 %.
 */
import { describe, expect, it } from "vitest";
import { cli, SAMPLE, writeConfigs } from "../replay/support.js";

describe("recall on an agent session: the prompt cache keeps its prefix (issue 19)", () => {
  it.each([
    ["recall", [{ use: "recall" }]],
    ["tool-result-compaction → recall", [{ use: "tool-result-compaction" }, { use: "recall" }]],
  ])("%s: mean prefix kept ≥ 95 % at gpt-4o's budget", async (_label, strategies) => {
    const { config } = await writeConfigs({ config: { session: { context: { module: "context-simple", config: { model: "gpt-4o", strategies } } } } });
    const { code, stdout, stderr } = await cli(["replay", SAMPLE, "--config", config, "--json"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { summary: { meanPrefixKept: number; turns: number } };
    expect(report.summary.turns).toBe(272);
    expect(report.summary.meanPrefixKept).toBeGreaterThanOrEqual(0.95);
  }, 60_000);
});
