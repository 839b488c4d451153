import { runCli } from "../../src/cli/main.js";

/** What an in-process CLI run returned and wrote. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with `argv` in the folder `cwd`, collecting what it writes. */
export async function runCliCollecting(cwd: string, argv: string[]): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, { stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stderr += c) }, cwd });
  return { code, stdout, stderr };
}
