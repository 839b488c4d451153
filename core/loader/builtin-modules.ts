import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { resolvePackage, type PackageResolution } from "./resolve-package.js";

/**
 * The short names amplifier.config.json may use for the modules amplifier-ts publishes, mapped to
 * their npm packages. Data only: core imports none of them. A built-in is resolved exactly as a
 * third party's package is (resolve-package.ts: node_modules upwards, `exports`), first from the
 * config file's folder, then from where this package is installed — so the umbrella package
 * `amplifier-ts`, which depends on them, makes every name work, and a kernel-only install says
 * which package to add. Adding a built-in is one line here and a package under modules/.
 */
export const BUILTIN_MODULES: Readonly<Record<string, string>> = Object.freeze({
  "context-simple": "@amplifier-ts/module-context-simple",
  "context-persistent": "@amplifier-ts/module-context-persistent",
  "memory-local": "@amplifier-ts/module-memory-local",
  "memory-null": "@amplifier-ts/module-memory-null",
  "memory-postgres": "@amplifier-ts/module-memory-postgres",
  "memory-redis": "@amplifier-ts/module-memory-redis",
  "memory-recorder": "@amplifier-ts/module-memory-recorder",
  "provider-openai": "@amplifier-ts/module-provider-openai",
  "provider-anthropic": "@amplifier-ts/module-provider-anthropic",
  "store-blobs": "@amplifier-ts/module-store-blobs",
  "store-graph": "@amplifier-ts/module-store-graph",
  "store-tasks": "@amplifier-ts/module-store-tasks",
  "store-vectors": "@amplifier-ts/module-store-vectors",
});

/** The folder the built-ins resolve from when the config's folder does not have them. */
const INSTALL_DIR = dirname(fileURLToPath(import.meta.url));

export function isBuiltinModule(name: string): boolean {
  return Object.hasOwn(BUILTIN_MODULES, name);
}

export function builtinModuleNames(): string[] {
  return Object.keys(BUILTIN_MODULES);
}

/** The package a built-in name stands for; undefined when the name is not a built-in. */
export function builtinModulePackage(name: string): string | undefined {
  return isBuiltinModule(name) ? BUILTIN_MODULES[name] : undefined;
}

/**
 * Where a built-in's package resolves: from `baseDir` (a project may pin its own version), else
 * from this installation. The failed resolution is returned when neither has it.
 */
export function resolveBuiltinModule(name: string, baseDir: string): PackageResolution | undefined {
  const packageName = builtinModulePackage(name);
  if (packageName === undefined) return undefined;
  const local = resolvePackage(packageName, baseDir);
  return local.ok ? local : resolvePackage(packageName, INSTALL_DIR);
}

/** The entry file of a built-in module, or undefined when it is not installed. */
export function builtinModuleFile(name: string, baseDir: string = process.cwd()): string | undefined {
  const found = resolveBuiltinModule(name, baseDir);
  return found?.ok ? found.file : undefined;
}
