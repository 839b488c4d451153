import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The modules amplifier-ts ships, by config name. Data only: adding a built-in is one line here
 * and a folder under modules/. Each entry is a path from the package root without extension:
 * the built package has `.js` files there (dist/modules/…), a source checkout run by a
 * TypeScript-aware runner (vitest, tsx) has `.ts` files. core never imports modules/ statically;
 * the loader imports the file this table points at, like any other module.
 */
export const BUILTIN_MODULES: Readonly<Record<string, string>> = {
  "context-simple": "modules/context-simple/index",
  "context-persistent": "modules/context-persistent/index",
};

/** Resolved from this file: core/loader/ sits two levels below the package root (dist/ when built). */
const PACKAGE_ROOT = new URL("../../", import.meta.url);

export function isBuiltinModule(name: string): boolean {
  return Object.hasOwn(BUILTIN_MODULES, name);
}

export function builtinModuleNames(): string[] {
  return Object.keys(BUILTIN_MODULES);
}

/**
 * The file of a built-in module: the `.js` entry when it exists (built package), else the `.ts`
 * one (source checkout). Undefined when the name is not a built-in or its folder is missing.
 */
export function builtinModuleFile(name: string): string | undefined {
  if (!isBuiltinModule(name)) return undefined;
  const entry = BUILTIN_MODULES[name];
  for (const extension of [".js", ".ts"]) {
    const file = fileURLToPath(new URL(`${entry}${extension}`, PACKAGE_ROOT));
    if (existsSync(file)) return file;
  }
  return undefined;
}
