import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { configFromObject, loadConfig, DEFAULT_CONFIG_FILE, type LoadedConfig } from "@amplifier-ts/core";
import { Coordinator } from "@amplifier-ts/core";
import { isAmplifierError, type AmplifierError } from "@amplifier-ts/contracts";
import { mountConfiguredModules, type ModuleReport } from "@amplifier-ts/core";
import { DEFAULT_SESSION_CONFIG, SESSION_DEFAULTS } from "../../session/index.js";
import { CliUsageError, type CliCommand, type CliWriter } from "../command.js";
import { formatTable } from "../format-table.js";

/**
 * `amplifier-ts validate [config]`: everything createSession would do — read, validate, load
 * and mount every module — then clean up. Prints one row per module; exit 1 if the session
 * would not start. Optional modules that fail are shown as skipped, with a warning, exit 0:
 * that is the failure policy, not an error.
 */
export const validateCommand: CliCommand = {
  name: "validate",
  summary: "Load, validate and mount every module of a config, report, clean up",
  description: [
    "Reads the config file, checks it against the config schema and each module's config",
    "schema, loads and mounts every module as a session would, prints a table (module, point,",
    "source, status) and cleans up. Exits 1 if anything a session needs fails.",
  ].join("\n"),
  arguments: [{ name: "config", description: `Config file (default: ./${DEFAULT_CONFIG_FILE} if present, else the default session, like createSession())`, optional: true }],
  options: {
    timeout: { type: "string", placeholder: "ms", description: "Mount timeout per module, in ms (default: the config's mountTimeoutMs, else 30000)" },
  },
  async run({ positionals, values, io }) {
    const timeout = parseTimeout(values.timeout);
    let loaded;
    try {
      const read = await configToValidate(positionals[0], io.cwd);
      loaded = { ...read, config: SESSION_DEFAULTS.prepareConfig(read.config) };
    } catch (error) {
      if (!isAmplifierError(error)) throw error;
      printError(io.stderr, error);
      return 1;
    }

    const coordinator = new Coordinator({
      config: loaded.config as unknown as Record<string, unknown>,
      ...(timeout === undefined ? {} : { mountTimeoutMs: timeout }),
    });
    for (const [name, value] of Object.entries(SESSION_DEFAULTS.capabilities)) coordinator.registerCapability(name, value);
    const outcome = await mountConfiguredModules(coordinator, loaded.config, {
      baseDir: loaded.baseDir,
      moduleNames: SESSION_DEFAULTS.moduleNames,
      ...(loaded.file === undefined ? {} : { file: loaded.file }),
      ...(timeout === undefined ? {} : { mountTimeoutMs: timeout }),
    });
    io.stdout.write(formatTable(["MODULE", "POINT", "SOURCE", "STATUS"], outcome.modules.map(row)));

    let failed = outcome.error !== undefined;
    for (const degraded of outcome.modules.filter((m) => m.fallback !== undefined)) {
      io.stderr.write(`warning: ${degraded.path} keeps its history in memory, not in ${degraded.fallback?.storagePath ?? degraded.fallback?.store ?? "its store"}: ${degraded.fallback?.reason ?? ""}\n`);
    }
    for (const skipped of outcome.modules.filter((m) => m.status === "skipped")) {
      io.stderr.write(`warning: optional ${skipped.path} skipped: ${skipped.error?.message ?? ""}\n`);
    }
    if (outcome.error !== undefined) printError(io.stderr, outcome.error);
    try {
      await coordinator.cleanup();
    } catch (error) {
      if (!isAmplifierError(error)) throw error;
      printError(io.stderr, error);
      failed = true;
    }
    if (!failed) {
      const mounted = outcome.modules.filter((m) => m.status === "mounted").length;
      const source = loaded.file ?? `the default config (no ./${DEFAULT_CONFIG_FILE}: ${DEFAULT_SESSION_CONFIG.session.context.module}, as createSession() mounts)`;
      io.stdout.write(`ok: ${mounted} module${mounted === 1 ? "" : "s"} mounted from ${source}\n`);
    }
    return failed ? 1 : 0;
  },
};

const STATUS_WORDS: Record<ModuleReport["status"], (report: ModuleReport) => string> = {
  mounted: (r) => (r.fallback === undefined ? "ok" : "ok, in memory (storage fallback)"),
  skipped: (r) => `skipped (optional): ${r.error?.code ?? ""}`,
  failed: (r) => `FAILED: ${r.error?.code ?? ""}`,
  "not-mounted": () => "not mounted",
};

function row(report: ModuleReport): string[] {
  const point = report.name === undefined ? report.point : `${report.point}:${report.name}`;
  return [report.module, point, report.source ?? "-", STATUS_WORDS[report.status](report)];
}

/** The error's message already starts with [CODE]; sub-errors are listed in it. */
function printError(stderr: CliWriter, error: AmplifierError): void {
  stderr.write(`error: ${error.message.trimEnd()}\n`);
}

/** What createSession() would use: the named file; else ./amplifier.config.json when present; else the default session. */
function configToValidate(path: string | undefined, cwd: string): Promise<LoadedConfig> {
  if (path !== undefined) return loadConfig(path, cwd);
  if (existsSync(resolve(cwd, DEFAULT_CONFIG_FILE))) return loadConfig(DEFAULT_CONFIG_FILE, cwd);
  return Promise.resolve(configFromObject(DEFAULT_SESSION_CONFIG, cwd));
}

function parseTimeout(value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (typeof value !== "string" || !Number.isInteger(ms) || ms <= 0) {
    throw new CliUsageError(`--timeout expects a whole number of milliseconds greater than 0, given "${String(value)}"`);
  }
  return ms;
}
