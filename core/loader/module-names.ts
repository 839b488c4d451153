import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { resolvePackage, type PackageResolution } from "./resolve-package.js";

/**
 * How a distribution lets configs name its modules. The kernel knows no module: the `amplifier-ts`
 * package gives its table of built-ins here (short name → npm package, old names included), and a
 * kernel-only install relies on the naming convention alone.
 *
 * | a bare name `x` in a config resolves to               | when                                        |
 * |--------------------------------------------------------|---------------------------------------------|
 * | `aliases[x]`, an npm package                           | the distribution lists `x`                  |
 * | `@amplifier-ts/module-<x>` (MODULE_PACKAGE_PREFIX + x) | that package is installed (the convention)  |
 * | the npm package `x`                                    | otherwise                                   |
 *
 * Aliased and conventional packages resolve from the config's folder first (a project may pin its
 * own version), then from `resolveFrom` (the distribution's install), then from the kernel's.
 */
export interface ModuleNames {
  /** Short (or former) name → npm package. */
  aliases?: Readonly<Record<string, string>>;
  /** The folder the distribution is installed in: its dependencies resolve from there. */
  resolveFrom?: string;
  /** Names offered in "did you mean" hints and in the list of valid references; default: the aliases' names. */
  known?: readonly string[];
}

/** The package name convention of modules published by amplifier-ts: `x` → `@amplifier-ts/module-<x>`. */
export const MODULE_PACKAGE_PREFIX = "@amplifier-ts/module-";

/** Where the kernel is installed: a kernel-only install finds the modules beside it. */
const KERNEL_DIR = dirname(fileURLToPath(import.meta.url));

/**
 * The package a bare name stands for: its alias, else the conventional package of an unscoped
 * name; undefined for anything else (a scoped package, a path).
 */
export function modulePackageOf(name: string, names: ModuleNames = {}): { packageName: string; aliased: boolean } | undefined {
  if (isAliased(name, names)) return { packageName: names.aliases![name]!, aliased: true };
  if (/^[a-z0-9][a-z0-9._-]*$/.test(name)) return { packageName: `${MODULE_PACKAGE_PREFIX}${name}`, aliased: false };
  return undefined;
}

/** The names a distribution offers: `known`, else its aliases' names. */
export function knownModuleNames(names: ModuleNames = {}): readonly string[] {
  return names.known ?? Object.keys(names.aliases ?? {});
}

export function isAliased(name: string, names: ModuleNames = {}): boolean {
  return names.aliases !== undefined && Object.hasOwn(names.aliases, name);
}

/** Resolve a package from the config's folder, then the distribution's, then the kernel's; the first failure when none has it. */
export function resolveNamedPackage(packageName: string, baseDir: string, names: ModuleNames = {}): PackageResolution {
  const local = resolvePackage(packageName, baseDir);
  if (local.ok) return local;
  for (const dir of [names.resolveFrom, KERNEL_DIR]) {
    if (dir === undefined) continue;
    const found = resolvePackage(packageName, dir);
    if (found.ok) return found;
  }
  return local;
}
