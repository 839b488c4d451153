import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { resolveNamedPackage, type ModuleNames } from "@amplifier-ts/core";

/**
 * The short names amplifier.config.json may use for the modules amplifier-ts publishes, mapped to
 * their npm packages. Data only: nothing here imports a module. The kernel resolves them exactly as
 * a third party's package (core/loader/module-names.ts): first from the config file's folder, then
 * from where this package is installed — which depends on every one of them. Adding a built-in is
 * one line here and a package under modules/; a renamed package keeps its old name here.
 */
export const BUILTIN_MODULES: Readonly<Record<string, string>> = Object.freeze({
  "context-simple": "@amplifier-ts/module-context-simple",
  "context-persistent": "@amplifier-ts/module-context-persistent",
  "memory-local": "@amplifier-ts/module-memory-local",
  "memory-null": "@amplifier-ts/module-memory-null",
  "memory-postgres": "@amplifier-ts/module-memory-postgres",
  "memory-redis": "@amplifier-ts/module-memory-redis",
  "memory-recorder": "@amplifier-ts/module-memory-recorder",
  "memory-tool": "@amplifier-ts/module-memory-tool",
  otel: "@amplifier-ts/module-otel",
  "provider-openai": "@amplifier-ts/module-provider-openai",
  "provider-anthropic": "@amplifier-ts/module-provider-anthropic",
  "read-stored-result": "@amplifier-ts/module-read-stored-result",
  "store-blobs": "@amplifier-ts/module-store-blobs",
  "store-graph": "@amplifier-ts/module-store-graph",
  "store-tasks": "@amplifier-ts/module-store-tasks",
  "store-vectors": "@amplifier-ts/module-store-vectors",
});

/**
 * Modules amplifier-ts publishes that this package does not depend on, because they are heavy and
 * few sessions use them (embedder-local: TensorFlow.js and 28 MB of weights). A project installs
 * one itself (`npm i @amplifier-ts/module-embedder-local`); a config names it by the package
 * convention (`embedder-local` → `@amplifier-ts/module-embedder-local`, resolved from the config's
 * folder). Listed here for "did you mean" hints only.
 */
export const SEPARATELY_INSTALLED_MODULES: Readonly<Record<string, string>> = Object.freeze({
  "embedder-local": "@amplifier-ts/module-embedder-local",
});

/** The built-ins as the kernel's loader takes them (createSession's `moduleNames`). */
export const BUILTIN_MODULE_NAMES: ModuleNames = Object.freeze({
  aliases: BUILTIN_MODULES,
  resolveFrom: dirname(fileURLToPath(import.meta.url)),
  known: Object.freeze([...Object.keys(BUILTIN_MODULES), ...Object.keys(SEPARATELY_INSTALLED_MODULES)]),
});

export function builtinModuleNames(): string[] {
  return Object.keys(BUILTIN_MODULES);
}

/** The entry file of a built-in module, or undefined when the name is no built-in or its package is not installed. */
export function builtinModuleFile(name: string, baseDir: string = process.cwd()): string | undefined {
  const packageName = Object.hasOwn(BUILTIN_MODULES, name) ? BUILTIN_MODULES[name] : undefined;
  if (packageName === undefined) return undefined;
  const found = resolveNamedPackage(packageName, baseDir, BUILTIN_MODULE_NAMES);
  return found.ok ? found.file : undefined;
}
