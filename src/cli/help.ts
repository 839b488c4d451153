import type { CliCommand } from "./command.js";
import { formatRows } from "./format-table.js";

export const PROGRAM = "amplifier-ts";

const HELP_OPTION = { flags: "-h, --help", description: "Show help" };

/** `amplifier-ts --help`: the commands and how to get help on each. */
export function programHelp(commands: readonly CliCommand[]): string {
  const rows = commands.map((command) => [`  ${[command.name, ...command.arguments.map(argumentUsage)].join(" ")}`, command.summary]);
  return [
    `${PROGRAM} — host amplifier modules: mount what amplifier.config.json names, check it, inspect it.`,
    "",
    `Usage: ${PROGRAM} <command> [options]`,
    "",
    "Commands:",
    formatRows(rows),
    "Options:",
    formatRows([[`  ${HELP_OPTION.flags}`, `${HELP_OPTION.description} (after a command: help on that command)`]]),
  ].join("\n");
}

/** `amplifier-ts <command> --help`. */
export function commandHelp(command: CliCommand): string {
  const usage = [PROGRAM, command.name, ...command.arguments.map(argumentUsage), "[options]"].join(" ");
  const sections = [`Usage: ${usage}`, "", command.description, ""];
  if (command.arguments.length > 0) {
    sections.push("Arguments:", formatRows(command.arguments.map((a) => [`  ${a.name}`, a.description])));
  }
  const options = Object.entries(command.options).map(([name, option]) => {
    const flag = `--${name}${option.type === "string" ? ` <${option.placeholder ?? "value"}>` : ""}`;
    return [`  ${option.short === undefined ? `    ${flag}` : `-${option.short}, ${flag}`}`, option.description];
  });
  options.push([`  ${HELP_OPTION.flags}`, "Show this help"]);
  sections.push("Options:", formatRows(options));
  return sections.join("\n");
}

function argumentUsage(argument: { name: string; optional: boolean }): string {
  return argument.optional ? `[${argument.name}]` : `<${argument.name}>`;
}
