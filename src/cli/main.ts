#!/usr/bin/env node
/**
 * The `amplifier-ts` executable (package.json "bin"). Everything happens in runCli, which tests
 * call in-process; this file only connects it to the process when run directly.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { toleratePipeClose } from "./tolerate-pipe-close.js";
import { runCli } from "./run-cli.js";

export { runCli, EXIT_OK, EXIT_FAILURE, EXIT_USAGE } from "./run-cli.js";
export type { CliIo, CliWriter, CliCommand } from "./command.js";

if (isEntryPoint()) {
  process.exitCode = await runCli(process.argv.slice(2), { stdout: toleratePipeClose(process.stdout), stderr: toleratePipeClose(process.stderr) });
}

/** True when node runs this file, directly or through npm's bin symlink; false when it is imported. */
function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}
