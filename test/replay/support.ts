import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../../src/cli/run-cli.js";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const TRANSCRIPTS = fileURLToPath(new URL("../fixtures/transcripts/", import.meta.url));
export const SAMPLE = join(ROOT, "examples/sample-session.jsonl");

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `amplifier-ts <argv…>` in-process; `stderr` may be given to pose as a terminal. */
export async function cli(argv: string[], options: { cwd?: string; tty?: boolean; columns?: number } = {}): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const err = { write: (chunk: string) => (stderr += chunk), isTTY: options.tty === true, columns: options.columns ?? 100 };
  const code = await runCli(argv, { stdout: { write: (chunk: string) => (stdout += chunk) }, stderr: err, cwd: options.cwd ?? ROOT });
  return { code, stdout, stderr };
}

/** Number of assistant messages in a JSONL transcript: the number of turns replay must report. */
export async function assistantCount(file: string): Promise<number> {
  const { readFile } = await import("node:fs/promises");
  return (await readFile(file, "utf8"))
    .split("\n")
    .filter((line) => line.trim() !== "")
    .filter((line) => (JSON.parse(line) as { role: string }).role === "assistant").length;
}

/** A folder holding one config file per entry; returns the paths, keyed like the input. */
export async function writeConfigs<K extends string>(configs: Record<K, unknown>, files: Record<string, string> = {}): Promise<Record<K, string>> {
  const dir = await mkdtemp(join(tmpdir(), "amplifier-replay-test-"));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  const out = {} as Record<K, string>;
  for (const [key, config] of Object.entries(configs) as [K, unknown][]) {
    const file = join(dir, `${key}.amplifier.config.json`);
    await writeFile(file, JSON.stringify(config, null, 2));
    out[key] = file;
  }
  return out;
}

/** Table rows of the per-turn table: lines that start with a turn number. */
export function turnRows(stdout: string): string[] {
  const table = stdout.split("\nSummary\n")[0] ?? "";
  return table.split("\n").filter((line) => /^\s*\d+\s/.test(line));
}
