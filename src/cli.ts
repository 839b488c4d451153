// amplifier-ts/cli: the command line as a function, runCli(argv, io) — what the `amplifier-ts`
// bin runs (replay, validate, modules, serve, …), for a host that embeds the commands or tests them.
export { runCli } from "./cli/run-cli.js";
export type { CliIo } from "./cli/command.js";
