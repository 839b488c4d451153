/**
 * Issue 25 item 9: stored content printed by the CLI never reaches the terminal as control
 * characters (screen clear, colours, window title, a CR that overwrites a line, bidi overrides).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCliCollecting } from "../support/run-cli-collecting.js";
import { formatTable } from "../../src/cli/format-table.js";
import { terminalSafe } from "../../src/cli/terminal-safe.js";

/** Every character a terminal could act on, besides \n and \t. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const HOSTILE = "hello \u001b[2J\u001b[1;1H\u001b[32mAll tests passed\u001b[0m \u001b]0;owned\u0007 over\rwrite \u009b31m c1 \u202eevil\u202c \u2066iso\u2069 del\u007f bs\b nul\u0000";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "amp-terminal-safe-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCliCollecting(dir, argv);

/** A transcript of a user turn with hostile content and an assistant answer that repeats it. */
async function hostileTranscript(): Promise<string> {
  const file = join(dir, "hostile.jsonl");
  const lines = [
    // Ids too: replay's explain tables and JSON name messages by id.
    { role: "user", content: HOSTILE, metadata: { id: "u1\u001b[31m\u009b\u202e" } },
    { role: "assistant", content: [{ type: "text", text: `echo: ${HOSTILE}` }], metadata: { id: "a1\u0007\u2066" } },
  ];
  await writeFile(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
  return file;
}

describe("terminalSafe", () => {
  it("escapes C0 (but \\n and \\t), DEL, C1 and bidi controls as JSON's \\uXXXX; leaves other text alone", () => {
    expect(terminalSafe("a\u001b[2Jb\u0007c\rd\be\u0000f")).toBe("a\\u001b[2Jb\\u0007c\\u000dd\\u0008e\\u0000f");
    expect(terminalSafe("x\u007fy\u0080z\u009b")).toBe("x\\u007fy\\u0080z\\u009b");
    expect(terminalSafe("\u202eabc\u202c \u2066d\u2069 \u200f\u061c")).toBe("\\u202eabc\\u202c \\u2066d\\u2069 \\u200f\\u061c");
    const plain = "line one\n\tindented — ünïcode ✓ 日本語 👍 \u00a0nbsp";
    expect(terminalSafe(plain)).toBe(plain);
  });

  it("is idempotent, and escaped JSON still parses to the same value", () => {
    const once = terminalSafe(HOSTILE);
    expect(once).not.toMatch(RAW_CONTROL);
    expect(terminalSafe(once)).toBe(once);
    const json = JSON.stringify({ text: HOSTILE, tricky: "a\\\u009b" });
    expect(JSON.parse(terminalSafe(json))).toEqual({ text: HOSTILE, tricky: "a\\\u009b" });
  });
});

describe("formatTable", () => {
  it("escapes cells before measuring them, so the columns line up with what is shown", () => {
    expect(formatTable(["A", "B"], [["x\u001b", "1"], ["yy", "2"]])).toBe("A        B\nx\\u001b  1\nyy       2\n");
  });
});

describe("CLI output of stored content", () => {
  it("sessions show (table): the content is shown with its controls escaped", async () => {
    const file = await hostileTranscript();
    expect((await cli("sessions", "import", file, "--session", "h1", "--store", "st")).code).toBe(0);
    const { code, stdout } = await cli("sessions", "show", "h1", "--store", "st");
    expect(code).toBe(0);
    expect(stdout).not.toMatch(RAW_CONTROL);
    expect(stdout).toContain("hello \\u001b[2J\\u001b[1;1H\\u001b[32mAll tests passed");
  });

  it("sessions show --format jsonl and export: no raw control, and the JSON reads back as the stored messages", async () => {
    const file = await hostileTranscript();
    await cli("sessions", "import", file, "--session", "h1", "--store", "st");
    for (const argv of [["sessions", "show", "h1", "--store", "st", "--format", "jsonl"], ["sessions", "export", "h1", "--store", "st"]]) {
      const { code, stdout } = await cli(...argv);
      expect(code).toBe(0);
      expect(stdout).not.toMatch(RAW_CONTROL);
      const messages = stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { content: unknown });
      expect(messages[0]?.content).toBe(HOSTILE);
      expect(messages[1]?.content).toEqual([{ type: "text", text: `echo: ${HOSTILE}` }]);
    }
  });

  it("replay (tables, --explain and --json): no raw control on stdout or stderr", async () => {
    const file = await hostileTranscript();
    for (const extra of [["--explain", "1"], ["--json", "--explain", "1"]]) {
      const { code, stdout, stderr } = await cli("replay", file, "--budget", "3000", ...extra);
      expect(code, stderr).toBe(0);
      expect(stdout).not.toMatch(RAW_CONTROL);
      expect(stderr).not.toMatch(RAW_CONTROL);
      if (extra.includes("--json")) expect(() => JSON.parse(stdout)).not.toThrow();
    }
  });

  it("error messages quoting what the user or a file gave are escaped too (stderr)", async () => {
    const missing = await cli("replay", "x\u001b]0;title\u0007.jsonl");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("x\\u001b]0;title\\u0007.jsonl");
    expect(missing.stderr).not.toMatch(RAW_CONTROL);

    await writeFile(join(dir, "bad.amplifier.config.json"), JSON.stringify({ session: { context: { module: "./nowhere\u001b[2J.js" } } }));
    const invalid = await cli("validate", "bad.amplifier.config.json");
    expect(invalid.code).toBe(1);
    expect(invalid.stderr + invalid.stdout).toContain("nowhere\\u001b[2J.js");
    expect(invalid.stderr + invalid.stdout).not.toMatch(RAW_CONTROL);
  });
});
