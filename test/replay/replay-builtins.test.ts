/**
 * `amplifier-ts replay` through the built-in context modules: context-simple via --config, and the
 * default (the embedded context-persistent in a temporary folder), on the small fixtures and on
 * examples/sample-session.jsonl. These need the window assembler, the message validators and the
 * JSONL store (context-persistent) to be in place.
 */
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { assistantCount, cli, SAMPLE, TRANSCRIPTS, turnRows, writeConfigs } from "./support.js";

const TOOL_SESSION = join(TRANSCRIPTS, "tool-session.jsonl");
const CRASH = join(TRANSCRIPTS, "crash-mid-tool.jsonl");

interface JsonTurn {
  turn: number;
  historyMessages: number;
  windowMessages: number;
  windowTokens: number;
  kept: number;
  removed: number;
  truncated: number;
  prefixKept: number;
}
interface JsonReport {
  summary: { turns: number; messages: number; module: string; budget: number | string; maxWindowTokens: number; totalWindowTokens: number; meanPrefixKept: number };
  turns: JsonTurn[];
  explain?: unknown;
}

let simple: string;

beforeAll(async () => {
  ({ simple } = await writeConfigs({ simple: { session: { context: { module: "context-simple", config: {} } } } }));
});

async function json(argv: string[]): Promise<JsonReport> {
  const { code, stdout, stderr } = await cli(["replay", ...argv, "--json"]);
  expect(stderr).toBe("");
  expect(code).toBe(0);
  return JSON.parse(stdout) as JsonReport;
}


describe.each([
  ["context-simple via --config", () => ["--config", simple], "context-simple"],
  ["the default (embedded context-persistent)", () => [], "context-persistent"],
])("replay through %s", (_label, extra, moduleName) => {
  it("a row per turn and the summary", async () => {
    const { code, stdout, stderr } = await cli(["replay", TOOL_SESSION, ...extra()]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(turnRows(stdout)).toHaveLength(8);
    expect(stdout).toMatch(new RegExp(`\\n {2}module\\s+${moduleName}\\n`));
    expect(stdout).toMatch(/\n {2}turns\s+8 \(/);
    expect(stdout).toMatch(/\n {2}budget\s+[\d,]+ tokens \(as the module sized it for gpt-4o\)\n/);
  });

  it("--json: one turn per assistant message; everything kept under a wide budget", async () => {
    const report = await json([TOOL_SESSION, ...extra()]);
    expect(report.summary.module).toBe(moduleName);
    expect(report.turns).toHaveLength(await assistantCount(TOOL_SESSION));
    expect(report.summary.turns).toBe(report.turns.length);
    expect(typeof report.summary.budget).toBe("number");
    for (const t of report.turns) {
      expect(t.kept).toBe(t.historyMessages);
      expect(t.removed).toBe(0);
      expect(t.prefixKept).toBe(1);
    }
  });

  it("--budget makes the window smaller, and every window fits it", async () => {
    const wide = await json([TOOL_SESSION, ...extra()]);
    const narrow = await json([TOOL_SESSION, ...extra(), "--budget", "1500"]);
    expect(narrow.summary.budget).toBe(1500);
    expect(narrow.summary.maxWindowTokens).toBeLessThan(wide.summary.maxWindowTokens);
    expect(narrow.summary.totalWindowTokens).toBeLessThan(wide.summary.totalWindowTokens);
    for (const t of narrow.turns) expect(t.windowTokens).toBeLessThanOrEqual(1500);
    // The 5k-token listing cannot fit: it is truncated or removed from turn 4 on.
    expect(narrow.turns.slice(3).every((t) => t.truncated > 0 || t.removed > 0)).toBe(true);
  });

  it("a crash mid-tool: the window after it carries a repair the history does not have", async () => {
    const report = await json([CRASH, ...extra()]);
    expect(report.turns).toHaveLength(6);
    // Turn 4 is the first request after the call with no result (message 7).
    const after = report.turns[3]!;
    expect(after.historyMessages).toBe(8);
    expect(after.windowMessages).toBeGreaterThan(after.kept);
  });

  it("--explain prints the turn's decisions as a table", async () => {
    const { code, stdout } = await cli(["replay", TOOL_SESSION, ...extra(), "--budget", "1500", "--explain", "6"]);
    expect(code).toBe(0);
    const explain = stdout.slice(stdout.indexOf("\nExplain turn 6"));
    expect(explain).toMatch(/^\nExplain turn 6 \(before message 14: 13 stored messages/);
    const lines = explain.split("\n");
    const header = lines.findIndex((l) => /^INDEX\s+ID\s+ROLE\s+DECISION/.test(l));
    expect(header).toBeGreaterThan(0);
    const rows = lines.slice(header + 1).filter((l) => l.trim() !== "");
    expect(rows.length).toBeGreaterThanOrEqual(13);
    expect(rows.some((r) => /\skept\s/.test(r))).toBe(true);
    expect(rows.some((r) => /\s(dropped|truncated)\s/.test(r))).toBe(true);
  });
});

describe("replay on examples/sample-session.jsonl", () => {
  it("--json (default module): one turn per assistant message, every window within the budget", { timeout: 120_000 }, async () => {
    // os.tmpdir() follows TMPDIR: a private one shows whether the temporary session folder is removed.
    const privateTmp = await mkdtemp(join(tmpdir(), "amplifier-replay-test-tmp-"));
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = privateTmp;
    const budget = 16_000;
    let report: JsonReport;
    try {
      report = await json([SAMPLE, "--budget", String(budget)]);
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
    }
    expect(await readdir(privateTmp)).toEqual([]);
    const assistants = await assistantCount(SAMPLE);
    // The generator's "323 assistant turns" counts user requests too; the file has 272 assistant messages.
    expect(assistants).toBe(272);
    expect(report.summary.turns).toBe(assistants);
    expect(report.summary.messages).toBe(592);
    expect(report.turns).toHaveLength(assistants);
    for (const t of report.turns) expect(t.windowTokens).toBeLessThanOrEqual(budget);
    expect(report.turns.some((t) => t.removed > 0)).toBe(true);
  });

  it("--json (default budget from gpt-4o's window): every window within the reported budget", { timeout: 120_000 }, async () => {
    const report = await json([SAMPLE, "--config", simple]);
    expect(typeof report.summary.budget).toBe("number");
    for (const t of report.turns) expect(t.windowTokens).toBeLessThanOrEqual(report.summary.budget as number);
  });
});
