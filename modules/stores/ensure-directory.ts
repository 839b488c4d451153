import { mkdir, rmdir, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { errnoOf } from "./storage-errors.js";

/**
 * `mkdir -p` that always ends. Node's `mkdir(path, { recursive: true })` steps back to the parent on
 * ENOENT and forward again on EEXIST; where a parent exists but cannot hold children (/proc, a
 * dangling symlink) it oscillates forever at 100% CPU (seen with both fs APIs on Node 20 for a path
 * under /proc).
 * Here each missing folder is created once, from the deepest existing ancestor down, and the first
 * failure is thrown with the system's code (ENOENT, EACCES, EROFS, ENOTDIR …). Returns the folders
 * this call created, outermost first (see removeEmptyDirectories).
 */
export async function ensureDirectory(dir: string, mode = 0o700): Promise<string[]> {
  const missing: string[] = [];
  let current = resolve(dir);
  for (;;) {
    try {
      const info = await stat(current);
      if (!info.isDirectory()) throw Object.assign(new Error(`not a directory: ${current}`), { code: "ENOTDIR", path: current });
      break;
    } catch (error) {
      const parent = dirname(current);
      if (errnoOf(error) !== "ENOENT" || parent === current) throw error;
      missing.push(current);
      current = parent;
    }
  }
  const created: string[] = [];
  for (const folder of missing.reverse()) {
    try {
      await mkdir(folder, { mode });
      created.push(folder);
    } catch (error) {
      // Another process may have created it meanwhile; anything else that is there is an error.
      if (errnoOf(error) !== "EEXIST" || !(await stat(folder).then((s) => s.isDirectory(), () => false))) throw error;
    }
  }
  return created;
}

/**
 * Removes `folders` (outermost first, as ensureDirectory returns them) from the innermost out while
 * they are empty; stops at the first that is not (rmdir never removes a folder with anything in it).
 */
export async function removeEmptyDirectories(folders: readonly string[]): Promise<void> {
  for (const folder of [...folders].reverse()) {
    try {
      await rmdir(folder);
    } catch {
      return;
    }
  }
}
