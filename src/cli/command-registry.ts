import type { CliCommand } from "./command.js";
import { modulesCommand } from "./commands/modules.js";
import { replayCommand } from "./commands/replay.js";
import { serveCommand } from "./commands/serve.js";
import { sessionsCommand } from "./commands/sessions.js";
import { validateCommand } from "./commands/validate.js";

/**
 * Every command of amplifier-ts, in the order the help lists them. Adding a command: one file in
 * commands/ exporting a CliCommand, and one line here.
 */
export const COMMANDS: readonly CliCommand[] = [validateCommand, modulesCommand, replayCommand, sessionsCommand, serveCommand];

export function findCommand(name: string): CliCommand | undefined {
  return COMMANDS.find((command) => command.name === name);
}
