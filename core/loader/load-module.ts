import { extname } from "node:path";
import { pathToFileURL } from "node:url";
import type { ModuleMeta, MountFunction } from "@amplifier-ts/contracts";
import { createError, describeValue, isAmplifierError } from "@amplifier-ts/contracts";
import { compileTsModule } from "./compile-ts-module.js";
import type { ModuleNames } from "./module-names.js";
import { resolveModule, type ResolvedModule } from "./resolve-module.js";
import { validateModuleMeta } from "./validate-module-meta.js";

/** A module ready to mount: where it came from, its mount function and its checked meta. */
export interface LoadedModule extends ResolvedModule {
  mount: MountFunction<Record<string, unknown>>;
  meta: ModuleMeta | undefined;
}

export interface LoadModuleOptions {
  /** Folder relative paths and package names resolve from (the config file's folder). */
  baseDir: string;
  /** Cache folder for compiled `.ts` modules (see compile-ts-module.ts). */
  cacheDir?: string;
  /** Where the reference sits in the config file (`tools[1]`); named in every error. */
  path?: string;
  /** The distribution's short names for its modules (module-names.ts). */
  moduleNames?: ModuleNames;
}

/**
 * Resolve, import and check one module. The exports may be named (`export function mount`,
 * `export const meta`) or sit on a default export object (`export default { mount, meta }`, and
 * CommonJS packages, whose module.exports arrives as the default).
 * Errors: MODULE_NOT_FOUND, MODULE_COMPILE_FAILED, MODULE_IMPORT_FAILED, INVALID_MODULE,
 * INVALID_MODULE_META — each naming the module as written in the config.
 */
export async function loadModule(specifier: string, options: LoadModuleOptions): Promise<LoadedModule> {
  const resolved = resolveModule(specifier, options.baseDir, options.path, options.moduleNames);
  const at = options.path === undefined ? {} : { path: options.path };
  const namespace = await importResolved(resolved, options.cacheDir, at);
  const exports = pickExports(namespace);
  if (typeof exports.mount !== "function") {
    throw createError("INVALID_MODULE", undefined, {
      module: specifier,
      file: resolved.file,
      ...at,
      expected: "an exported function mount(coordinator, config), named or on the default export",
      given: `exports ${describeValue(Object.keys(namespace))}`,
    });
  }
  const meta = exports.meta === undefined ? undefined : validateModuleMeta(exports.meta, { module: specifier, file: resolved.file });
  // meta errors name meta.<field>: a path inside the module, not the config file.
  return { ...resolved, mount: exports.mount as LoadedModule["mount"], meta };
}

async function importResolved(resolved: ResolvedModule, cacheDir: string | undefined, at: { path?: string }): Promise<Record<string, unknown>> {
  let url = pathToFileURL(resolved.file).href;
  // A .ts module named by path goes through esbuild. A package (built-in or third party) that
  // resolves to .ts did so under a condition the runner set (`--conditions=source` in a source
  // checkout run by vitest): that runner imports TypeScript itself.
  if (extname(resolved.file) === ".ts" && resolved.source === "path") {
    // Node then reads the inline source maps, so stack traces name the .ts lines. Process-wide, so
    // only switched on once a compiled module is about to load.
    process.setSourceMapsEnabled(true);
    try {
      url = (await compileTsModule(resolved.file, cacheDir === undefined ? {} : { cacheDir })).url;
    } catch (error) {
      if (isAmplifierError(error, "MODULE_COMPILE_FAILED")) {
        const messages = Array.isArray(error.details.errors) ? error.details.errors.join("\n") : undefined;
        throw createError("MODULE_COMPILE_FAILED", messages, { ...error.details, module: resolved.specifier, ...at });
      }
      throw error;
    }
  }
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (cause) {
    if (isAmplifierError(cause)) throw cause;
    throw createError("MODULE_IMPORT_FAILED", `importing the module failed: ${(cause as Error)?.message ?? String(cause)}`, {
      module: resolved.specifier,
      file: resolved.file,
      ...at,
      cause,
      ...importHint((cause as NodeJS.ErrnoException)?.code),
    });
  }
}

function pickExports(namespace: Record<string, unknown>): { mount?: unknown; meta?: unknown } {
  if (typeof namespace.mount === "function") return { mount: namespace.mount, meta: namespace.meta };
  const fallback = namespace.default;
  if (typeof fallback === "object" && fallback !== null) {
    const d = fallback as Record<string, unknown>;
    return { mount: d.mount, meta: d.meta ?? namespace.meta };
  }
  return { mount: undefined };
}

function importHint(code: string | undefined): { hint?: string } {
  if (code === "ERR_MODULE_NOT_FOUND") return { hint: "a package or file the module imports is missing" };
  if (code === "ERR_UNKNOWN_FILE_EXTENSION") return { hint: "this Node cannot import .ts: run `npm run build` and use the built package" };
  return {};
}
