/**
 * The shape of one CLI command. A command is one file in commands/ exporting a CliCommand and
 * one line in command-registry.ts; parsing (node:util parseArgs), `--help`, usage errors and
 * error printing are shared (run-cli.ts), so a command only says what it accepts and does.
 */

/** Where a command writes; tests pass string collectors, main.ts passes process.stdout / stderr. */
export interface CliWriter {
  write(chunk: string): unknown;
}

export interface CliIo {
  stdout: CliWriter;
  stderr: CliWriter;
  /** Folder relative paths are resolved from. Default process.cwd(). */
  cwd?: string;
}

export interface CliOption {
  type: "string" | "boolean";
  short?: string;
  /** Shown in help as `--name <placeholder>` for string options. */
  placeholder?: string;
  description: string;
}

export interface CliArgument {
  name: string;
  description: string;
  optional: boolean;
}

export interface CliInvocation {
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
  io: Required<CliIo>;
}

export interface CliCommand {
  name: string;
  /** One line, shown in the program's help. */
  summary: string;
  /** A paragraph or two, shown in the command's help. */
  description: string;
  arguments: readonly CliArgument[];
  options: Readonly<Record<string, CliOption>>;
  /** Returns the exit code: 0 ok, 1 the work failed, 2 a usage error. */
  run(invocation: CliInvocation): Promise<number>;
}

/** Thrown by a command for a usage error (bad option value …): printed with the command's help, exit 2. */
export class CliUsageError extends Error {
  override readonly name = "CliUsageError";
}
