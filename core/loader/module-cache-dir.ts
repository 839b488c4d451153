import { existsSync, statSync } from "node:fs";
import { lstat, mkdir } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { createError } from "@amplifier-ts/contracts";

/**
 * Where compiled `.ts` modules are cached, and the check that makes importing from there safe.
 * A cached file is imported — run — by this process, so whoever can write the folder can run code
 * as this user (issue 25 item 8: a world-writable `os.tmpdir()/amplifier-ts-cache` made by another
 * user ran its planted file as root). The cache is therefore always a folder private to the user:
 *
 * | candidate, first usable wins                                    | when it is not private        |
 * |-----------------------------------------------------------------|-------------------------------|
 * | the `cacheDir` option, else AMPLIFIER_TS_CACHE_DIR (the user's word) | MODULE_CACHE_UNSAFE      |
 * | `node_modules/.cache/amplifier-ts` of the nearest package (babel's, eslint's convention) | skipped |
 * | `$XDG_CACHE_HOME/amplifier-ts`, else `~/.cache/amplifier-ts`    | skipped                       |
 * | `os.tmpdir()/amplifier-ts-<uid>`                                | MODULE_CACHE_UNSAFE           |
 *
 * Private means: a real folder (lstat — a symlink is refused, not followed), owned by this
 * process's effective uid, and writable by nobody else (no group or other write bit). Folders made
 * here are made with mode 0700. A folder that fails is never repaired (chmod) and never used: files
 * may already have been planted in it. The last candidate fails loudly rather than silently
 * compiling elsewhere, so an attacker's folder in the shared temp folder is reported.
 *
 * Windows has no uids and no mode bits (ACLs decide, and its temp folder is per user): there only
 * the symlink and folder checks apply.
 */
export async function defaultCacheDir(cwd: string = process.cwd()): Promise<string> {
  const fromEnv = process.env.AMPLIFIER_TS_CACHE_DIR;
  if (fromEnv) return privateCacheDir(resolve(fromEnv));
  for (const candidate of [projectCacheDir(resolve(cwd)), userCacheDir()]) {
    if (candidate === undefined) continue;
    try {
      return await privateCacheDir(candidate.dir, candidate.parentMode);
    } catch {
      // Not creatable (read-only install, no home) or not private: the next candidate.
    }
  }
  return privateCacheDir(join(tmpdir(), `amplifier-ts-${uid() ?? "user"}`));
}

/**
 * `dir`, created (mode 0700; missing parents with `parentMode`) when absent, and checked private.
 * MODULE_CACHE_UNSAFE (or the mkdir's error, as MODULE_CACHE_UNSAFE) otherwise.
 */
export async function privateCacheDir(dir: string, parentMode = 0o700): Promise<string> {
  try {
    await mkdir(dirname(dir), { recursive: true, mode: parentMode });
    await mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw unsafe(dir, `it cannot be created (${(error as Error).message})`, error);
  }
  const problem = await notPrivate(dir, "folder");
  if (problem !== undefined) throw unsafe(dir, problem);
  return dir;
}

/**
 * Why the entry at `path` may not be trusted as a private `kind` of this user, or undefined when it
 * may. Used for the folder and for every cached file before it is read.
 */
export async function notPrivate(path: string, kind: "folder" | "file"): Promise<string | undefined> {
  const info = await lstat(path);
  if (info.isSymbolicLink()) return "it is a symbolic link";
  if (kind === "folder" ? !info.isDirectory() : !info.isFile()) return `it is not a ${kind}`;
  const me = uid();
  if (me === undefined) return undefined;
  if (info.uid !== me) return `it is owned by uid ${info.uid}, not by this process's uid ${me}`;
  if ((info.mode & 0o022) !== 0) return `others may write it (mode ${(info.mode & 0o777).toString(8).padStart(4, "0")})`;
  return undefined;
}

function unsafe(dir: string, reason: string, cause?: unknown) {
  return createError("MODULE_CACHE_UNSAFE", `the cache folder for compiled .ts modules ${dir} cannot be used: ${reason}`, {
    file: dir,
    expected: "a folder owned by this user that nobody else may write (made with mode 0700 when absent)",
    hint: "remove the folder (files in it may have been planted by another user), or set AMPLIFIER_TS_CACHE_DIR to a private folder",
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The effective uid; undefined where there are none (Windows). */
function uid(): number | undefined {
  return process.geteuid?.();
}

/** node_modules/.cache/amplifier-ts of the nearest package (from `cwd` up) that has a node_modules folder. */
function projectCacheDir(cwd: string): { dir: string; parentMode: number } | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) {
      // node_modules/.cache is shared with other tools: it keeps the usual mode; only ours is 0700.
      return isDirectory(join(dir, "node_modules")) ? { dir: join(dir, "node_modules", ".cache", "amplifier-ts"), parentMode: 0o777 } : undefined;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** The XDG cache folder of the user (the base directory spec asks for 0700 when it is created). */
function userCacheDir(): { dir: string; parentMode: number } | undefined {
  const xdg = process.env.XDG_CACHE_HOME;
  // The spec ignores a relative XDG_CACHE_HOME.
  if (xdg !== undefined && isAbsolute(xdg)) return { dir: join(xdg, "amplifier-ts"), parentMode: 0o700 };
  let home: string;
  try {
    home = homedir();
  } catch {
    return undefined;
  }
  return home === "" ? undefined : { dir: join(home, ".cache", "amplifier-ts"), parentMode: 0o700 };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
