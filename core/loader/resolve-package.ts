import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/**
 * Resolve an npm package specifier (`pkg`, `@scope/pkg`, `pkg/sub/path`) the way Node's ESM
 * loader would from a file in `fromDir`: walk up the node_modules folders, then follow the
 * package's `exports` (conditions "node", "import", "default", plus any this process was started
 * with by `--conditions`/`-C`, as Node does) or, without `exports`, its `main`.
 *
 * Node offers no stable API for "resolve from another directory" in ESM (import.meta.resolve's
 * parent argument is behind a flag in Node 20, and createRequire applies the "require"
 * condition), hence this small resolver. It covers what packages actually use: exact and `*`
 * subpaths, nested conditions, arrays of fallbacks, and self-reference. Returns the real path
 * (symlinks resolved, as Node does), or a reason when the package is missing or does not export
 * the subpath.
 *
 * Self-reference (Node's PACKAGE_SELF_RESOLVE, tried before node_modules): from inside a package
 * whose package.json has `exports`, its own name resolves to itself — so a plugin's author runs
 * the conformance suite in the plugin's folder with `module: "<its own name>"`, nothing linked.
 */
export type PackageResolution =
  | { ok: true; file: string; packageDir: string }
  | { ok: false; reason: "not-installed" | "not-exported" | "no-entry"; packageDir?: string; subpath: string };

const CONDITIONS = new Set(["node", "import", "default", ...userConditions([...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)])]);

/** The values of `--conditions=x`, `--conditions x`, `-C x` and `-C=x` among Node's options. */
export function userConditions(args: readonly string[]): string[] {
  const found: string[] = [];
  args.forEach((arg, index) => {
    const inline = /^(?:--conditions|-C)=(.+)$/.exec(arg);
    if (inline) found.push(inline[1]!);
    else if ((arg === "--conditions" || arg === "-C") && args[index + 1] !== undefined) found.push(args[index + 1]!);
  });
  return found;
}
const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

/** Split `@scope/pkg/sub` into the package name and the `./sub` subpath; undefined when not a valid npm name. */
export function parsePackageSpecifier(specifier: string): { name: string; subpath: string } | undefined {
  const parts = specifier.split("/");
  const nameParts = specifier.startsWith("@") ? 2 : 1;
  const name = parts.slice(0, nameParts).join("/");
  if (!PACKAGE_NAME.test(name) || name.length > 214) return undefined;
  const rest = parts.slice(nameParts).join("/");
  return { name, subpath: rest === "" ? "." : `./${rest}` };
}

export function resolvePackage(specifier: string, fromDir: string): PackageResolution {
  const parsed = parsePackageSpecifier(specifier);
  if (parsed === undefined) return { ok: false, reason: "not-installed", subpath: "." };
  const { name, subpath } = parsed;
  const packageDir = selfReference(name, fromDir) ?? findPackageDir(name, fromDir);
  if (packageDir === undefined) return { ok: false, reason: "not-installed", subpath };

  const manifest = readManifest(packageDir);
  let target: string | undefined;
  if (manifest.exports !== undefined && manifest.exports !== null) {
    target = resolveExports(manifest.exports, subpath);
    if (target === undefined) return { ok: false, reason: "not-exported", packageDir, subpath };
  } else if (subpath === ".") {
    target = legacyMain(packageDir, manifest.main);
  } else {
    target = subpath;
  }
  const file = target === undefined ? undefined : resolve(packageDir, target);
  if (file === undefined || !isFile(file)) return { ok: false, reason: "no-entry", packageDir, subpath };
  return { ok: true, file: realpathSync(file), packageDir };
}

/**
 * The folder of the package `fromDir` lies in (its nearest package.json, not looking past a
 * node_modules folder — Node's package scope) when that package is named `name` and has `exports`:
 * Node resolves a package's own name to itself only through its exports.
 */
function selfReference(name: string, fromDir: string): string | undefined {
  for (let dir = resolve(fromDir); ; dir = dirname(dir)) {
    if (basename(dir) === "node_modules") return undefined;
    if (existsSync(join(dir, "package.json"))) {
      const manifest = readManifest(dir);
      return manifest.name === name && manifest.exports !== undefined && manifest.exports !== null ? dir : undefined;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

function findPackageDir(name: string, fromDir: string): string | undefined {
  let dir = resolve(fromDir);
  for (;;) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function readManifest(packageDir: string): { name?: unknown; exports?: unknown; main?: unknown } {
  try {
    return JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { name?: unknown; exports?: unknown; main?: unknown };
  } catch {
    return {};
  }
}

/** `exports` is a string, a condition object, or a subpath map (every key starts with "."). */
function resolveExports(exports: unknown, subpath: string): string | undefined {
  const isSubpathMap = isRecord(exports) && Object.keys(exports).some((key) => key.startsWith("."));
  if (!isSubpathMap) return subpath === "." ? resolveTarget(exports, "") : undefined;
  const map = exports as Record<string, unknown>;
  if (Object.hasOwn(map, subpath)) return resolveTarget(map[subpath], "");
  // Patterns: the longest prefix before "*" wins (Node's PATTERN_KEY_COMPARE).
  const patterns = Object.keys(map)
    .filter((key) => key.includes("*"))
    .sort((a, b) => b.indexOf("*") - a.indexOf("*"));
  for (const key of patterns) {
    const [prefix = "", suffix = ""] = key.split("*");
    if (subpath.startsWith(prefix) && subpath.endsWith(suffix) && subpath.length >= key.length - 1) {
      return resolveTarget(map[key], subpath.slice(prefix.length, subpath.length - suffix.length));
    }
  }
  return undefined;
}

function resolveTarget(target: unknown, star: string): string | undefined {
  if (typeof target === "string") return target.startsWith("./") ? target.replaceAll("*", star) : undefined;
  if (Array.isArray(target)) {
    for (const item of target) {
      const found = resolveTarget(item, star);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (isRecord(target)) {
    // Object key order decides, as in Node: the first condition we match wins.
    for (const [condition, value] of Object.entries(target)) {
      if (CONDITIONS.has(condition)) {
        const found = resolveTarget(value, star);
        if (found !== undefined) return found;
      }
    }
  }
  return undefined; // null: explicitly not exported
}

/** Without `exports`: `main` (with CommonJS-style extension and index probing), else index.js. */
function legacyMain(packageDir: string, main: unknown): string | undefined {
  const candidates = typeof main === "string" && main !== "" ? [main, `${main}.js`, join(main, "index.js")] : [];
  candidates.push("index.js");
  return candidates.find((candidate) => isFile(resolve(packageDir, candidate)));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
