import { CONFIG_LOCATION_CAPABILITY, type AmplifierEvents, type ConfigLocationCapability, type CoordinatorContract } from "@amplifier-ts/contracts";
import type { AmplifierConfig } from "@amplifier-ts/contracts";
import { checkOptions } from "../config/check-options.js";
import { validateConfig } from "../config/validate-config.js";
import { createError, isAmplifierError, type AmplifierError } from "@amplifier-ts/contracts";
import { loadModule, type LoadedModule } from "./load-module.js";
import type { ModuleNames } from "./module-names.js";
import { mountModule } from "./mount-module.js";
import { planModules, type ConfigPoint, type PlannedModule } from "./plan-modules.js";
import type { ModuleSource } from "./resolve-module.js";
import { validateModuleConfig } from "./validate-module-config.js";

export type ModuleStatus = "mounted" | "skipped" | "failed" | "not-mounted";

/** What happened to one config entry; the CLI's `validate` table is a list of these. */
export interface ModuleReport {
  point: ConfigPoint;
  module: string;
  name: string | undefined;
  path: string;
  optional: boolean;
  source: ModuleSource | undefined;
  file: string | undefined;
  version: string | undefined;
  status: ModuleStatus;
  error: AmplifierError | undefined;
  /** Set when the module mounted but keeps its data in memory: what it said in `context:storage_fallback`. */
  fallback: StorageFallback | undefined;
}

/** A context module's `context:storage_fallback`, as its report carries it. */
export type StorageFallback = AmplifierEvents["context:storage_fallback"];

export interface MountOutcome {
  modules: ModuleReport[];
  /** Set when a required module failed; the caller decides what to tear down (createSession: everything). */
  error: AmplifierError | undefined;
}

export interface MountConfiguredModulesOptions {
  /** Folder relative module paths and package names resolve from. */
  baseDir: string;
  /** The config file, named in config errors. */
  file?: string;
  cacheDir?: string;
  /** Overrides config.mountTimeoutMs, which overrides coordinator.mountTimeoutMs. */
  mountTimeoutMs?: number;
  /** The distribution's short names for its modules (module-names.ts). */
  moduleNames?: ModuleNames;
}

/**
 * Load and mount every module of a config. The written failure policy (contracts/MODULES.md):
 *
 * | module                                   | load or mount fails                                   |
 * |------------------------------------------|-------------------------------------------------------|
 * | session.context, session.orchestrator    | required: the session fails                           |
 * | providers, tools, hooks                  | required too, unless `optional: true`                 |
 * | … with `optional: true`                  | skipped; `module:mount_failed` {optional: true}       |
 *
 * Two phases. First every module is resolved, imported and its config validated — all of them,
 * so one run reports every broken reference and config; if a required one fails, nothing is
 * mounted. Then they mount one by one in MOUNT_ORDER; the first required failure stops it.
 * Every mounted module is announced as `module:mounted` {module, point, name}; every failure,
 * required or optional, as `module:mount_failed` {module, point, error, optional}. A failed module has
 * been rolled back (mount-module.ts); rolling back the modules mounted before it is the caller's
 * (createSession runs coordinator.cleanup()). Never throws for a module's failure: the outcome
 * carries it, so a caller can report every module.
 */
export async function mountConfiguredModules(
  coordinator: CoordinatorContract,
  config: AmplifierConfig,
  options: MountConfiguredModulesOptions,
): Promise<MountOutcome> {
  // A public entry point: bad arguments throw (CONFIG_INVALID, INVALID_ARGUMENT); module failures do not.
  checkOptions("mountConfiguredModules", options, { baseDir: "string", file: "string", cacheDir: "string", mountTimeoutMs: "milliseconds", moduleNames: "object" });
  if (typeof options.baseDir !== "string") {
    throw createError("INVALID_ARGUMENT", "mountConfiguredModules() needs options.baseDir", { path: "mountConfiguredModules.options.baseDir", expected: "the folder relative module paths resolve from", given: options.baseDir });
  }
  validateConfig(config, options.file === undefined ? {} : { file: options.file });
  const timeoutMs = options.mountTimeoutMs ?? config.mountTimeoutMs ?? coordinator.mountTimeoutMs;
  const plan = planModules(config);
  const reports = plan.map(initialReport);
  offerConfigLocation(coordinator, options);

  const loaded = await Promise.all(plan.map((entry) => prepare(entry, options)));
  const loadFailures: AmplifierError[] = [];
  loaded.forEach((result, index) => {
    const report = reports[index]!;
    if (result instanceof Error) {
      report.error = result;
      report.status = report.optional ? "skipped" : "failed";
      if (!report.optional) loadFailures.push(result);
    } else {
      Object.assign(report, { source: result.source, file: result.file, version: result.meta?.version });
    }
  });
  if (loadFailures.length > 0) {
    for (const [index, report] of reports.entries()) {
      if (report.error !== undefined) await announce(coordinator, plan[index]!, report.error);
    }
    return { modules: reports, error: loadFailures.length === 1 ? loadFailures[0] : aggregate(loadFailures, reports, options.file) };
  }

  for (const [index, entry] of plan.entries()) {
    const report = reports[index]!;
    const module = loaded[index]!;
    if (module instanceof Error) {
      await announce(coordinator, entry, module); // an optional module that could not be loaded
      continue;
    }
    // A module that falls back to memory says so while it mounts; its report keeps the reason.
    const stopListening = coordinator.hooks.on("context:storage_fallback", (fallback) => void (report.fallback = fallback));
    try {
      await mountModule(coordinator, entry, module, { timeoutMs });
      stopListening();
      report.status = "mounted";
      await announceMounted(coordinator, entry);
    } catch (error) {
      stopListening();
      report.fallback = undefined;
      const failure = asAmplifierError(error, entry);
      report.error = failure;
      report.status = entry.optional ? "skipped" : "failed";
      await announce(coordinator, entry, failure);
      if (!entry.optional) return { modules: reports, error: failure };
    }
  }
  return { modules: reports, error: undefined };
}

/** Registers the "config" capability unless the caller did (createSession and `validate` both come here). */
function offerConfigLocation(coordinator: CoordinatorContract, options: MountConfiguredModulesOptions): void {
  if (coordinator.getCapability(CONFIG_LOCATION_CAPABILITY) !== undefined) return;
  const location: ConfigLocationCapability = { baseDir: options.baseDir, ...(options.file === undefined ? {} : { file: options.file }) };
  coordinator.registerCapability(CONFIG_LOCATION_CAPABILITY, location);
}

async function prepare(entry: PlannedModule, options: MountConfiguredModulesOptions): Promise<LoadedModule | AmplifierError> {
  try {
    const module = await loadModule(entry.specifier, {
      baseDir: options.baseDir,
      path: entry.path,
      ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
      ...(options.moduleNames === undefined ? {} : { moduleNames: options.moduleNames }),
    });
    validateModuleConfig(module.meta, entry.config, {
      module: entry.specifier,
      at: [...entry.at, "config"],
      ...(options.file === undefined ? {} : { file: options.file }),
    });
    return module;
  } catch (error) {
    return asAmplifierError(error, entry);
  }
}

async function announceMounted(coordinator: CoordinatorContract, entry: PlannedModule): Promise<void> {
  try {
    await coordinator.hooks.emit("module:mounted", { module: entry.specifier, point: entry.point, ...(entry.name === undefined ? {} : { name: entry.name }) });
  } catch {
    // As below: a report, not part of the mount.
  }
}

/** Observers must not change the failure policy: a hook bus error here is not the module's. */
async function announce(coordinator: CoordinatorContract, entry: PlannedModule, error: AmplifierError): Promise<void> {
  try {
    await coordinator.hooks.emit("module:mount_failed", { module: entry.specifier, point: entry.point, error, optional: entry.optional });
  } catch {
    // The event is a report; the outcome already carries the error.
  }
}

function aggregate(failures: AmplifierError[], reports: ModuleReport[], file: string | undefined): AmplifierError {
  const lines = reports.filter((r) => r.status === "failed").map((r) => `  - ${r.path} (${r.module}): ${r.error?.message ?? ""}`);
  return createError("CONFIG_INVALID", `${failures.length} required modules cannot be used:\n${lines.join("\n")}\n`, {
    ...(file === undefined ? {} : { file }),
    errors: failures,
  });
}

/** Unexpected throws (a bug, not a contract violation) still get the module's name and the path. */
function asAmplifierError(error: unknown, entry: PlannedModule): AmplifierError {
  if (isAmplifierError(error)) return error;
  return createError("MODULE_IMPORT_FAILED", error instanceof Error ? error.message : String(error), {
    module: entry.specifier,
    path: entry.path,
    cause: error,
  });
}

function initialReport(entry: PlannedModule): ModuleReport {
  return {
    point: entry.point,
    module: entry.specifier,
    name: entry.name,
    path: entry.path,
    optional: entry.optional,
    source: undefined,
    file: undefined,
    version: undefined,
    status: "not-mounted",
    error: undefined,
    fallback: undefined,
  };
}
