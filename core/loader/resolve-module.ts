import { existsSync, realpathSync, statSync } from "node:fs";
import { extname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { didYouMean } from "../config/suggest-key.js";
import { createError, type AmplifierError, type ErrorDetails } from "@amplifier-ts/contracts";
import { knownModuleNames, MODULE_PACKAGE_PREFIX, modulePackageOf, resolveNamedPackage, type ModuleNames } from "./module-names.js";
import { parsePackageSpecifier, resolvePackage } from "./resolve-package.js";

/** Where a module came from: a distribution's name (an alias or the naming convention), a file path, or an installed npm package. */
export type ModuleSource = "builtin" | "path" | "package";

export interface ResolvedModule {
  /** The reference as written in the config. */
  specifier: string;
  source: ModuleSource;
  /** Absolute real path of the module's entry file. */
  file: string;
}

/** Module files the loader imports: JavaScript as is, TypeScript through esbuild (compile-ts-module). */
export const MODULE_EXTENSIONS = [".js", ".mjs", ".ts"] as const;

function expectedReference(names: ModuleNames): string {
  const known = knownModuleNames(names);
  const named = known.length === 0 ? `a module name (x for ${MODULE_PACKAGE_PREFIX}x)` : `a built-in name (${known.join(", ")})`;
  return `${named}, a relative path to a .js, .mjs or .ts file, or an installed npm package name`;
}

/**
 * Resolve a module reference, in this order:
 *   1. a distribution's alias (`names.aliases`, module-names.ts): its npm package, resolved like
 *      any other — aliases shadow npm packages of the same name;
 *   2. a path: starts with `./`, `../`, `/` or `file:`; resolved from `baseDir` (the config file's folder);
 *   3. an unscoped name `x` whose conventional package `@amplifier-ts/module-<x>` is installed;
 *   4. an npm package name, resolved from `baseDir` as Node would (node_modules upwards, `exports`).
 * Throws MODULE_NOT_FOUND saying what was tried and, where it can, what was probably meant.
 * `path` is where the reference sits in the config file (`tools[1]`), for the error.
 */
export function resolveModule(specifier: string, baseDir: string, path?: string, names: ModuleNames = {}): ResolvedModule {
  const notFound = (message: string, details: ErrorDetails): AmplifierError =>
    createError("MODULE_NOT_FOUND", message, { module: specifier, ...(path === undefined ? {} : { path }), ...details });

  const named = modulePackageOf(specifier, names);
  if (named?.aliased === true) {
    const found = resolveNamedPackage(named.packageName, baseDir, names);
    if (!found.ok) {
      throw notFound(`the built-in module's package ${named.packageName} is not installed`, {
        ...(found.packageDir === undefined ? {} : { file: found.packageDir }),
        expected: `${named.packageName} in node_modules (the distribution depends on it)`,
        hint: `npm install ${named.packageName}`,
      });
    }
    return { specifier, source: "builtin", file: found.file };
  }

  if (isPathSpecifier(specifier)) {
    const file = specifier.startsWith("file:") ? fileURLToPath(specifier) : resolve(baseDir, specifier);
    if (!(MODULE_EXTENSIONS as readonly string[]).includes(extname(file))) {
      throw notFound("a module path must name a .js, .mjs or .ts file", {
        file,
        expected: "a path ending in .js, .mjs or .ts",
        given: specifier,
        ...siblingHint(file, specifier),
      });
    }
    if (!isFile(file)) {
      throw notFound("no such file", { file, expected: `an existing file, relative to ${baseDir}`, ...siblingHint(file, specifier) });
    }
    return { specifier, source: "path", file: realpathSync(file) };
  }

  if (named !== undefined) {
    const found = resolveNamedPackage(named.packageName, baseDir, names);
    if (found.ok) return { specifier, source: "builtin", file: found.file };
  }

  const builtinHint = didYouMean(specifier, [...knownModuleNames(names)]);
  if (parsePackageSpecifier(specifier) === undefined) {
    throw notFound("not a built-in name, a path or an npm package name", {
      expected: expectedReference(names),
      given: specifier,
      ...hintOf(builtinHint),
    });
  }
  const found = resolvePackage(specifier, baseDir);
  if (found.ok) return { specifier, source: "package", file: found.file };
  const reasons = {
    "not-installed": `package not installed (looked in node_modules folders from ${baseDir} upwards)`,
    "not-exported": `the package does not export "${found.subpath}" for import`,
    "no-entry": "the package's entry file does not exist",
  } as const;
  throw notFound(reasons[found.reason], {
    ...(found.packageDir === undefined ? {} : { file: found.packageDir }),
    expected: expectedReference(names),
    ...hintOf(found.reason === "not-installed" ? (builtinHint ?? installHint(specifier, named?.packageName)) : undefined),
  });
}

export function isPathSpecifier(specifier: string): boolean {
  return /^\.\.?([/\\]|$)/.test(specifier) || isAbsolute(specifier) || specifier.startsWith("file:");
}

/** `./tool.js` missing but `./tool.ts` present is the commonest slip; say so. */
function siblingHint(file: string, specifier: string): { hint?: string } {
  const stem = file.slice(0, file.length - extname(file).length);
  const sibling = MODULE_EXTENSIONS.map((extension) => `${stem}${extension}`).find((candidate) => candidate !== file && isFile(candidate));
  if (sibling === undefined) return {};
  const written = specifier.slice(0, specifier.length - extname(specifier).length) + extname(sibling);
  return { hint: `did you mean "${written}"?` };
}

/** A kernel-only install names the amplifier-ts package a short name stands for, too. */
function installHint(specifier: string, conventional: string | undefined): string {
  return conventional === undefined
    ? `npm install ${specifier}, or use a ./relative path`
    : `npm install ${conventional} (an amplifier-ts module) or ${specifier}, or use a ./relative path`;
}

function hintOf(hint: string | undefined): { hint?: string } {
  return hint === undefined ? {} : { hint };
}

function isFile(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isFile();
  } catch {
    return false;
  }
}
