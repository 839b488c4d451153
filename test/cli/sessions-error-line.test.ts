/**
 * `amplifier-ts sessions …` prints a typed failure as one `error: [CODE] message` line. The error's
 * message already starts with its code; the command put the code in front again
 * ("error: [INVALID_SESSION_ID] [INVALID_SESSION_ID] Invalid session id…").
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCliCollecting } from "../support/run-cli-collecting.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "amp-sessions-error-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCliCollecting(dir, argv);

describe("amplifier-ts sessions: a typed failure", () => {
  it("is one error line with its code once", async () => {
    await writeFile(join(dir, "ok.jsonl"), '{"role":"user","content":"hi"}\n');
    await writeFile(join(dir, "bad.jsonl"), '{"role":"user","content":"hi"}\n{"role":"nobody"}\n');
    for (const [argv, code] of [
      [["sessions", "import", "ok.jsonl", "--session", "a b", "--store", "st"], "INVALID_SESSION_ID"],
      [["sessions", "show", "a b", "--store", "st"], "INVALID_SESSION_ID"],
      [["sessions", "import", "bad.jsonl", "--session", "s", "--store", "st"], "TRANSCRIPT_INVALID"],
    ] as const) {
      const run = await cli(...argv);
      expect(run.code, argv.join(" ")).toBe(1);
      expect(run.stderr, argv.join(" ")).toMatch(new RegExp(`^error: \\[${code}\\] `));
      expect(run.stderr.split(`[${code}]`).length - 1, run.stderr).toBe(1);
    }
  });
});
