import { isAmplifierError } from "@amplifier-ts/contracts";
import { loadModule } from "@amplifier-ts/core";
import { BUILTIN_MODULE_NAMES, builtinModuleNames } from "../../session/index.js";
import type { CliCommand } from "../command.js";
import { formatTable } from "../format-table.js";

/**
 * `amplifier-ts modules`: the built-in modules, with kind, version and description taken from
 * each module's own `meta` (the table in src/session/builtin-modules.ts only maps names to packages).
 * A built-in that cannot be loaded is listed as unavailable, and the exit code is 1: the
 * installation is broken.
 */
export const modulesCommand: CliCommand = {
  name: "modules",
  summary: "List the built-in modules",
  description: "Lists the modules amplifier-ts ships, usable by name in amplifier.config.json, with the kind,\nversion and description from each module's meta.",
  arguments: [],
  options: {},
  async run({ io }) {
    let broken = false;
    const rows: string[][] = [];
    for (const name of builtinModuleNames()) {
      try {
        const { meta } = await loadModule(name, { baseDir: io.cwd, moduleNames: BUILTIN_MODULE_NAMES });
        rows.push([name, meta?.kind ?? "-", meta?.version ?? "-", meta?.description ?? ""]);
      } catch (error) {
        if (!isAmplifierError(error)) throw error;
        broken = true;
        rows.push([name, "?", "?", `unavailable: [${error.code}]`]);
        io.stderr.write(`error: built-in "${name}" cannot be loaded: ${error.message}\n`);
      }
    }
    io.stdout.write(formatTable(["NAME", "KIND", "VERSION", "DESCRIPTION"], rows));
    return broken ? 1 : 0;
  },
};
