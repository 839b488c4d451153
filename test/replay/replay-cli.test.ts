/**
 * `amplifier-ts replay` end to end through runCli, on a small stand-in context module written at
 * test time (so these tests exercise the command, the renderings and run-replay whatever state
 * the built-in context modules are in). The built-ins are replayed in replay-builtins.test.ts.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runReplay } from "../../src/replay/run-replay.js";
import { assistantCount, cli, SAMPLE, TRANSCRIPTS, turnRows, writeConfigs } from "./support.js";

/** Keeps the newest messages whose rough cost fits half the budget; explains every decision. */
const STUB_CONTEXT = `
export const meta = { name: "stub-context", version: "0.0.1", kind: "context", description: "replay test stand-in", configSchema: { type: "object" } };
export function mount(coordinator, config) {
  let history = [];
  let last;
  const cost = (m) => 4 + Math.ceil(JSON.stringify(m.content ?? "").length / 2) + Math.ceil(JSON.stringify(m.tool_calls ?? "").length / 2);
  const context = {
    moduleName: "stub-context",
    async addMessage(m) { history.push(structuredClone(m)); },
    async getMessagesForRequest(budget = 100000) {
      let used = 0;
      const keep = new Set();
      for (let i = history.length - 1; i >= 0; i--) { const c = cost(history[i]); if (used + c > budget / 2) break; used += c; keep.add(i); }
      const decisions = history.map((m, i) => ({ index: i, id: m.metadata?.id, role: m.role, decision: keep.has(i) ? "kept" : "dropped",
        reason: keep.has(i) ? "recent" : "older than the window", tokens: keep.has(i) ? cost(m) : { before: cost(m), after: 0 } }));
      last = { report: { budget, truncated: 0, decisions } };
      return history.filter((_, i) => keep.has(i)).map((m) => structuredClone(m));
    },
    async getMessages() { return history.map((m) => structuredClone(m)); },
    async setMessages(ms) { history = ms.map((m) => structuredClone(m)); },
    async clear() { history = []; },
  };
  if (!config.noExplain) context.explainLastWindow = () => last;
  return context;
}
`;

const TOOL_SESSION = join(TRANSCRIPTS, "tool-session.jsonl");
const CRASH = join(TRANSCRIPTS, "crash-mid-tool.jsonl");
const MALFORMED = join(TRANSCRIPTS, "malformed-line.jsonl");

let configs: Record<"stub" | "noExplain", string>;

beforeAll(async () => {
  configs = await writeConfigs(
    {
      stub: { session: { context: { module: "./stub-context.mjs", config: {} } } },
      noExplain: { session: { context: { module: "./stub-context.mjs", config: { noExplain: true } } } },
    },
    { "stub-context.mjs": STUB_CONTEXT },
  );
});

interface JsonReport {
  summary: Record<string, number | string>;
  turns: { turn: number; windowTokens: number; windowMessages: number; kept: number; removed: number; historyMessages: number }[];
  explain?: unknown;
}

describe("replay: the human report", () => {
  it("prints one row per turn, then the summary, exit 0", async () => {
    const { code, stdout, stderr } = await cli(["replay", "test/fixtures/transcripts/tool-session.jsonl", "--config", configs.stub]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const lines = stdout.split("\n");
    expect(lines[0]).toMatch(/^TURN\s+HISTORY MSGS\s+HISTORY TOKENS\s+WINDOW MSGS\s+WINDOW TOKENS\s+KEPT\s+REMOVED\s+TRUNCATED\s+PREFIX KEPT\s+MS$/);
    const rows = turnRows(stdout);
    expect(rows.map((r) => Number(r.trim().split(/\s+/)[0]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // Right-aligned: every row as wide as the header, numbers ending in the same column.
    for (const row of rows) expect(row.length).toBe(lines[0]!.length);
    expect(stdout).toContain("\nSummary\n");
    expect(stdout).toMatch(/ {2}transcript\s+test\/fixtures\/transcripts\/tool-session\.jsonl\n/);
    expect(stdout).toMatch(/ {2}messages\s+18\n/);
    expect(stdout).toMatch(/ {2}turns\s+8 \(/);
    expect(stdout).toMatch(/ {2}module\s+stub-context\n/);
    expect(stdout).toMatch(/ {2}model\s+gpt-4o\n/);
    expect(stdout).toMatch(/ {2}history tokens\s+\d{1,3}(,\d{3})* summed/);
    expect(stdout).toMatch(/ {2}window tokens\s+\d{1,3}(,\d{3})* summed over turns, \d+\.\d% saved/);
    expect(stdout).toMatch(/ {2}max window\s+[\d,]+ tokens/);
    expect(stdout).toMatch(/ {2}mean prefix kept\s+\d+\.\d%/);
    expect(stdout).toMatch(/ {2}time per turn\s+p50 [\d,]+\.\d\d ms, p99 [\d,]+\.\d\d ms/);
    expect(stdout).toMatch(/ {2}total time\s+[\d,.]+ m?s/);
  });

  it("numbers carry thousands separators and shares one decimal", async () => {
    const { stdout } = await cli(["replay", TOOL_SESSION, "--config", configs.stub]);
    const row4 = turnRows(stdout)[3]!.trim().split(/\s+/);
    expect(row4[2]).toMatch(/^\d{1,3},\d{3}$/); // history tokens after the 5k-token listing
    expect(row4[8]).toMatch(/^\d{1,3}\.\d%$/);
    expect(row4[9]).toMatch(/^\d+\.\d\d$/);
  });

  it("--budget makes the windows smaller", async () => {
    const wide = JSON.parse((await cli(["replay", TOOL_SESSION, "--config", configs.stub, "--json"])).stdout) as JsonReport;
    const narrow = JSON.parse((await cli(["replay", TOOL_SESSION, "--config", configs.stub, "--json", "--budget", "600"])).stdout) as JsonReport;
    expect(narrow.summary.budget).toBe(600);
    expect(narrow.summary.maxWindowTokens).toBeLessThan(wide.summary.maxWindowTokens as number);
    expect(narrow.summary.totalWindowTokens).toBeLessThan(wide.summary.totalWindowTokens as number);
    expect(narrow.turns.at(-1)!.removed).toBeGreaterThan(0);
    for (const t of narrow.turns) expect(t.kept + t.removed).toBe(t.historyMessages);
  });

  it("--every N prints every Nth row and the last; the summary still covers all turns", async () => {
    const { code, stdout } = await cli(["replay", TOOL_SESSION, "--config", configs.stub, "--every", "3"]);
    expect(code).toBe(0);
    expect(turnRows(stdout).map((r) => Number(r.trim().split(/\s+/)[0]))).toEqual([3, 6, 8]);
    expect(stdout).toContain("(3 of 8 turns shown: every 3rd and the last; --every 1 shows all. The summary covers all turns.)");
    expect(stdout).toMatch(/ {2}turns\s+8 \(/);
  });

  it("above 60 turns: every 10th row and the last by default", async () => {
    const turns = await assistantCount(SAMPLE);
    const { code, stdout } = await cli(["replay", SAMPLE, "--config", configs.stub, "--budget", "20000"]);
    expect(code).toBe(0);
    const shown = turnRows(stdout).map((r) => Number(r.trim().split(/\s+/)[0]));
    const expected = Array.from({ length: Math.floor(turns / 10) }, (_, i) => (i + 1) * 10);
    if (turns % 10 !== 0) expected.push(turns);
    expect(shown).toEqual(expected);
    expect(stdout).toMatch(new RegExp(`turns\\s+${turns} \\(`));
  });
});

describe("replay --json", () => {
  it("prints one JSON document { summary, turns } with one turn per assistant message", async () => {
    const { code, stdout, stderr } = await cli(["replay", CRASH, "--config", configs.stub, "--json"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const report = JSON.parse(stdout) as JsonReport;
    expect(Object.keys(report)).toEqual(["summary", "turns"]);
    expect(report.turns).toHaveLength(await assistantCount(CRASH));
    expect(report.summary.turns).toBe(report.turns.length);
    expect(report.summary.messages).toBe(13);
    expect(report.summary.module).toBe("stub-context");
    expect(report.turns.map((t) => t.turn)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("messages without ids (this transcript has none) still count as kept when the window carries them", async () => {
    const report = JSON.parse((await cli(["replay", CRASH, "--config", configs.stub, "--json"])).stdout) as JsonReport;
    for (const t of report.turns) {
      expect(t.kept).toBe(t.windowMessages);
      expect(t.removed).toBe(0);
    }
  });

  it("--json with --explain adds the module's report; null (and a note) when the module has none", async () => {
    const withExplain = JSON.parse((await cli(["replay", CRASH, "--config", configs.stub, "--json", "--explain", "2"])).stdout) as JsonReport;
    expect(withExplain.explain).toMatchObject({ report: { decisions: expect.any(Array) } });
    const without = await cli(["replay", CRASH, "--config", configs.noExplain, "--json", "--explain", "2"]);
    expect(without.code).toBe(0);
    expect((JSON.parse(without.stdout) as JsonReport).explain).toBeNull();
    expect(without.stderr).toContain('module "stub-context" offers no explain');
  });
});

describe("replay --explain", () => {
  it("prints the turn's per-message decisions as a table", async () => {
    const { code, stdout } = await cli(["replay", TOOL_SESSION, "--config", configs.stub, "--budget", "600", "--explain", "7", "--every", "4"]);
    expect(code).toBe(0);
    // The explained turn's row is shown even when --every skips it.
    expect(turnRows(stdout).map((r) => Number(r.trim().split(/\s+/)[0]))).toEqual([4, 7, 8]);
    const explain = stdout.slice(stdout.indexOf("Explain turn 7"));
    expect(explain).toMatch(/^Explain turn 7 \(before message 16: 15 stored messages, window of \d+ messages, [\d,]+ tokens\)\n/);
    expect(explain).toMatch(/\n {2}dropped \d+, kept \d+\n/);
    const lines = explain.split("\n");
    const header = lines.findIndex((l) => l.startsWith("INDEX"));
    expect(lines[header]).toMatch(/^INDEX\s+ID\s+ROLE\s+DECISION\s+TOKENS\s+REASON$/);
    const rows = lines.slice(header + 1).filter((l) => l.trim() !== "");
    expect(rows).toHaveLength(15);
    expect(rows[0]).toMatch(/^\s*0\s+t01\s+system\s+dropped\s+\d+ → 0\s+older than the window$/);
    expect(rows[14]).toMatch(/^\s*14\s+t15\s+tool\s+kept\s+\d+\s+recent$/);
  });

  it("says so clearly when the module offers no explain", async () => {
    const { code, stdout } = await cli(["replay", TOOL_SESSION, "--config", configs.noExplain, "--explain", "3"]);
    expect(code).toBe(0);
    expect(stdout).toContain('Explain turn 3 (');
    expect(stdout).toContain('module "stub-context" offers no explain: it has no explainLastWindow()');
  });

  it("a turn beyond the transcript: exit 2 naming the range, nothing on stdout", async () => {
    const { code, stdout, stderr } = await cli(["replay", TOOL_SESSION, "--config", configs.stub, "--explain", "9"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^error: --explain 9: the transcript has 8 turns; give a turn from 1 to 8\n/);
  });
});

describe("replay: errors", () => {
  it("a missing transcript: exit 1, the file named", async () => {
    const { code, stdout, stderr } = await cli(["replay", "no/such/session.jsonl", "--config", configs.stub]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^error: transcript no\/such\/session\.jsonl not found \(looked at .*no\/such\/session\.jsonl\)\n$/);
  });

  it("a folder instead of a transcript: exit 1", async () => {
    const { code, stderr } = await cli(["replay", "test/fixtures/transcripts", "--config", configs.stub]);
    expect(code).toBe(1);
    expect(stderr).toContain("error: transcript test/fixtures/transcripts is not a file");
  });

  it.each([["0"], ["-5"], ["12x"], ["1.5"], [""], ["1e3"]])("--budget %j: exit 2 with the expected form", async (budget) => {
    const { code, stdout, stderr } = await cli(["replay", TOOL_SESSION, `--budget=${budget}`]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(`error: --budget expects a whole number of tokens greater than 0, e.g. --budget 32000; given "${budget}"`);
    expect(stderr).toContain("Usage: amplifier-ts replay <transcript.jsonl> [options]");
  });

  it("--every and --explain are checked the same way", async () => {
    expect((await cli(["replay", TOOL_SESSION, "--every", "0"])).stderr).toContain('--every expects a whole number greater than 0, e.g. --every 5; given "0"');
    expect((await cli(["replay", TOOL_SESSION, "--explain", "last"])).stderr).toContain('--explain expects a turn number from 1, e.g. --explain 12; given "last"');
  });

  it("no transcript argument: exit 2 with the usage", async () => {
    const { code, stderr } = await cli(["replay"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error: missing the transcript: amplifier-ts replay <transcript.jsonl>\n\nUsage:/);
  });

  it("a line that is not JSON: exit 1 with TRANSCRIPT_INVALID naming the line", async () => {
    const { code, stdout, stderr } = await cli(["replay", MALFORMED, "--config", configs.stub]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^error: \[TRANSCRIPT_INVALID\] line 4 is not JSON \(file .*malformed-line\.jsonl, at line 4\)/);
  });

  it("a missing config file: exit 1 with CONFIG_NOT_FOUND", async () => {
    const { code, stderr } = await cli(["replay", TOOL_SESSION, "--config", "no-such.amplifier.config.json"]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^error: \[CONFIG_NOT_FOUND\].*no-such\.amplifier\.config\.json/);
  });
});

describe("replay: progress bar", () => {
  it("drawn on a terminal for a long file, erased before the report", async () => {
    const { code, stdout, stderr } = await cli(["replay", SAMPLE, "--config", configs.stub, "--budget", "20000"], { tty: true, columns: 100 });
    expect(code).toBe(0);
    expect(stdout).not.toContain("\r");
    expect(stderr).toMatch(/^\rreplay {2}\[[█░]+\] {2}[\d,]+\/[\d,]+ turns {2}\d+% {2}\d+\.\ds\u001b\[K/);
    expect(stderr.endsWith("\r\u001b[K")).toBe(true);
    for (const frame of stderr.split("\r").filter(Boolean)) expect(frame.replace("\u001b[K", "").length).toBeLessThan(100);
  });

  it("never in a log (not a terminal) and never with --json", async () => {
    expect((await cli(["replay", SAMPLE, "--config", configs.stub, "--budget", "20000"], { tty: false })).stderr).toBe("");
    expect((await cli(["replay", SAMPLE, "--config", configs.stub, "--budget", "20000", "--json"], { tty: true })).stderr).toBe("");
  });
});

describe("runReplay", () => {
  it("an AbortSignal stops it between messages", async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const run = runReplay({
      transcript: TOOL_SESSION,
      config: configs.stub,
      signal: controller.signal,
      onTurn(turn) {
        seen.push(turn.turn);
        if (turn.turn === 2) controller.abort(new Error("enough"));
      },
    });
    await expect(run).rejects.toThrow("enough");
    expect(seen).toEqual([1, 2]);
  });

  it("a line that is JSON but not a message is TRANSCRIPT_INVALID too", async () => {
    const { writeFile, mkdtemp } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const dir = await mkdtemp(join(tmpdir(), "replay-bad-"));
    const file = join(dir, "t.jsonl");
    await writeFile(file, '{"role":"user","content":"hi"}\n[1,2]\n');
    await expect(runReplay({ transcript: file, config: configs.stub })).rejects.toMatchObject({ code: "TRANSCRIPT_INVALID", details: { path: "line 2" } });
    expect(existsSync(file)).toBe(true);
  });
});
