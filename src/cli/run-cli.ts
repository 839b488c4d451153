import { parseArgs } from "node:util";
import { didYouMean } from "@amplifier-ts/core";
import { createError, isAmplifierError } from "@amplifier-ts/contracts";
import { CliUsageError, type CliCommand, type CliIo } from "./command.js";
import { COMMANDS, findCommand } from "./command-registry.js";
import { commandHelp, programHelp } from "./help.js";
import { terminalSafeWriter } from "./terminal-safe.js";

/** Exit codes: the work succeeded, the work failed, the command line was wrong. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/**
 * Run `amplifier-ts <argv…>` in-process and return the exit code. Tests call this directly;
 * main.ts calls it with process.argv and the real streams.
 *
 * | argv                                  | output                              | exit |
 * |---------------------------------------|-------------------------------------|------|
 * | `--help`, `-h`, `help`                | program help on stdout              | 0    |
 * | `help <command>`, `<command> --help`  | command help on stdout              | 0    |
 * | nothing                               | program help on stderr              | 2    |
 * | an unknown command                    | error, did-you-mean, help on stderr | 2    |
 * | a bad option or too many arguments    | error and command help on stderr    | 2    |
 * | a command                             | what it prints                      | its  |
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  if (!Array.isArray(argv) || argv.some((arg) => typeof arg !== "string")) {
    throw createError("INVALID_ARGUMENT", "runCli() takes the arguments after the program name", { path: "argv", expected: "an array of strings", given: argv });
  }
  if (typeof io?.stdout?.write !== "function" || typeof io?.stderr?.write !== "function") {
    throw createError("INVALID_ARGUMENT", "runCli() writes to io.stdout and io.stderr", { path: "io", expected: "{ stdout: { write }, stderr: { write }, cwd? }", given: io });
  }
  // Stored content reaches both streams (tables, JSONL, error messages): controls are shown escaped (terminal-safe.ts).
  const full = { stdout: terminalSafeWriter(io.stdout), stderr: terminalSafeWriter(io.stderr), cwd: io.cwd ?? process.cwd() };
  const [name, ...rest] = argv;
  if (name === undefined) {
    full.stderr.write(`${programHelp(COMMANDS)}\n`);
    return EXIT_USAGE;
  }
  if (name === "--help" || name === "-h" || (name === "help" && rest.length === 0)) {
    full.stdout.write(`${programHelp(COMMANDS)}\n`);
    return EXIT_OK;
  }
  if (name === "help") return runCli([rest[0] as string, "--help"], io);

  const command = findCommand(name);
  if (command === undefined) {
    const hint = didYouMean(name, COMMANDS.map((c) => c.name));
    full.stderr.write(`error: unknown command "${name}"${hint === undefined ? "" : `; ${hint}`}\n\n${programHelp(COMMANDS)}\n`);
    return EXIT_USAGE;
  }

  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parse(command, rest);
  } catch (error) {
    return usageError(command, error, full);
  }
  if (parsed.values.help === true) {
    full.stdout.write(`${commandHelp(command)}\n`);
    return EXIT_OK;
  }
  try {
    return await command.run({ positionals: parsed.positionals, values: parsed.values, io: full });
  } catch (error) {
    if (error instanceof CliUsageError) return usageError(command, error, full);
    // Commands report the errors they expect; anything reaching here is still shown, with its code if it has one.
    full.stderr.write(`error: ${isAmplifierError(error) ? error.message : ((error as Error)?.stack ?? String(error))}\n`);
    return EXIT_FAILURE;
  }
}

function parse(command: CliCommand, args: string[]) {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = { help: { type: "boolean", short: "h" } };
  for (const [name, option] of Object.entries(command.options)) {
    options[name] = { type: option.type, ...(option.short === undefined ? {} : { short: option.short }) };
  }
  const parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  if (parsed.values.help !== true && parsed.positionals.length > command.arguments.length) {
    const extra = parsed.positionals.slice(command.arguments.length);
    throw new CliUsageError(`unexpected argument${extra.length > 1 ? "s" : ""} ${extra.map((a) => `"${a}"`).join(" ")}`);
  }
  return parsed as { values: Record<string, string | boolean | undefined>; positionals: string[] };
}

function usageError(command: CliCommand, error: unknown, io: Required<CliIo>): number {
  // parseArgs' messages end with advice about "--" that does not apply here; keep the first sentence.
  const message = (error as Error)?.message?.split(". To specify")[0] ?? String(error);
  io.stderr.write(`error: ${message}\n\n${commandHelp(command)}\n`);
  return EXIT_USAGE;
}
