import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, rename, rm, rmdir, unlink } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import type { MemoryTreeFile, MemoryTreeStore, MemoryTreeTransaction } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import { memoryToolError } from "./memory-tool-errors.js";
import { TreeLock } from "./tree-lock.js";

export interface FileMemoryTreeOptions {
  /** The folder holding one sub-folder per tree. */
  path: string;
  /** How long a change waits for another writer of the tree. Default 10000. */
  lockTimeoutMs?: number;
}

/**
 * Memory trees as real folders: `<path>/<tree>/…` holds the files as written (a user can read
 * them with any editor), `<path>/.<tree>.lock` is the tree's lock file (tree-lock.ts).
 *
 * - Never follows a symbolic link: every component of a path is checked with lstat, a file is
 *   opened with O_NOFOLLOW, and a listing skips links and special files — a link planted in a
 *   tree (to /etc, or to another tree) is MEMORY_TOOL/UNSAFE_PATH, not a way out.
 * - Writes are atomic: a temp file `.<name>.tmp-<pid>-<hex>` beside the target, fsync, rename —
 *   a reader sees the old text or the new one. A directory is deleted by first renaming it to a
 *   hidden `.trash-<hex>` name (atomic), then removing that.
 * - Empty directories are pruned after a delete or a move, so a directory exists while a file
 *   lies under it, as in every MemoryTreeStore.
 * - Hidden names (temp files, trash) left by a writer that crashed are removed by the next
 *   transaction of the tree: only lock holders make them, so under the lock any found is abandoned.
 */
export class FileMemoryTree implements MemoryTreeStore {
  readonly kind = "file";
  readonly #root: string;
  readonly #lockTimeoutMs: number;
  readonly #cleaned = new Set<string>();
  #closed = false;

  constructor(options: FileMemoryTreeOptions) {
    this.#root = resolve(options.path);
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
  }

  async connect(): Promise<void> {
    this.#open();
  }

  async disconnect(): Promise<void> {
    this.#closed = true;
  }

  async read(tree: string, path: string): Promise<string | undefined> {
    this.#open();
    return this.#read(tree, path);
  }

  async list(tree: string, dir: string): Promise<MemoryTreeFile[]> {
    this.#open();
    return this.#list(tree, dir);
  }

  async transact<T>(tree: string, fn: (tx: MemoryTreeTransaction) => Promise<T>): Promise<T> {
    this.#open();
    await mkdir(this.#root, { recursive: true });
    const lock = new TreeLock(join(this.#root, `.${tree}.lock`), this.#lockTimeoutMs);
    return lock.run(async () => {
      const base = (await this.#treeDir(tree, true))!;
      if (!this.#cleaned.has(tree)) {
        await removeAbandoned(base);
        this.#cleaned.add(tree);
      }
      const tx: MemoryTreeTransaction = {
        read: (path) => this.#read(tree, path),
        list: (dir) => this.#list(tree, dir),
        write: (path, text) => this.#write(base, path, text),
        remove: (path) => this.#remove(base, path),
        move: (from, to) => this.#move(base, from, to),
      };
      return fn(tx);
    });
  }

  async #read(tree: string, path: string): Promise<string | undefined> {
    const base = await this.#treeDir(tree, false);
    if (base === undefined) return undefined;
    const kind = await walk(base, path);
    if (kind !== "file") return undefined;
    // O_NOFOLLOW: a link swapped in after the walk is refused by the kernel.
    const handle = await open(join(base, path), constants.O_RDONLY | constants.O_NOFOLLOW).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      if (error.code === "ELOOP") throw unsafe(base, join(base, path), "a symbolic link");
      throw error;
    });
    if (handle === undefined) return undefined;
    try {
      return await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
  }

  async #list(tree: string, dir: string): Promise<MemoryTreeFile[]> {
    const base = await this.#treeDir(tree, false);
    if (base === undefined) return [];
    if ((await walk(base, dir)) !== "directory") return [];
    const files: MemoryTreeFile[] = [];
    const visit = async (rel: string): Promise<void> => {
      const entries = await readdir(rel === "" ? base : join(base, rel), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT" || error.code === "ENOTDIR") return [];
        throw error;
      });
      for (const entry of entries) {
        if (entry.name.startsWith(".")) continue;
        const child = rel === "" ? entry.name : `${rel}/${entry.name}`;
        if (entry.isDirectory()) await visit(child);
        else if (entry.isFile()) {
          const info = await lstat(join(base, child)).catch(() => undefined);
          if (info?.isFile()) files.push({ path: child, size: info.size });
        }
      }
    };
    await visit(dir);
    return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async #write(base: string, path: string, text: string): Promise<void> {
    const segments = path.split("/");
    await makeParents(base, segments);
    const target = join(base, path);
    const existing = await lstat(target).catch(() => undefined);
    if (existing !== undefined && !existing.isFile()) throw unsafe(base, target, existing.isSymbolicLink() ? "a symbolic link" : "not a regular file");
    const temp = join(base, ...segments.slice(0, -1), `.${segments.at(-1)}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`);
    const handle = await open(temp, "wx", 0o600);
    try {
      await handle.writeFile(text, "utf8");
      await handle.datasync();
    } catch (error) {
      await handle.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    await handle.close();
    await rename(temp, target).catch(async (error: unknown) => {
      await unlink(temp).catch(() => undefined);
      throw error;
    });
  }

  async #remove(base: string, path: string): Promise<void> {
    const kind = await walk(base, path);
    const target = join(base, path);
    if (kind === "file") await unlink(target);
    else if (kind === "directory") {
      const trash = join(base, `.trash-${randomBytes(6).toString("hex")}`);
      await rename(target, trash);
      await rm(trash, { recursive: true, force: true });
    }
    await prune(base, path);
  }

  async #move(base: string, from: string, to: string): Promise<void> {
    if ((await walk(base, from)) === "missing") return;
    const segments = to.split("/");
    await makeParents(base, segments);
    await rename(join(base, from), join(base, to));
    await prune(base, from);
  }

  /** The tree's folder (made when `create`), or undefined when it does not exist; a link there is unsafe. */
  async #treeDir(tree: string, create: boolean): Promise<string | undefined> {
    const dir = join(this.#root, tree);
    if (create) await mkdir(dir, { recursive: true });
    const info = await lstat(dir).catch(() => undefined);
    if (info === undefined) return undefined;
    if (!info.isDirectory()) throw unsafe(dir, dir, info.isSymbolicLink() ? "a symbolic link" : "not a directory");
    return dir;
  }

  #open(): void {
    if (this.#closed) throw createError("STORE_CLOSED", "the memory tree store has been disconnected", { module: "memory-tool" });
  }
}

/**
 * What `path` is under `base`, checking every component with lstat: a symbolic link or special
 * file anywhere on the way is MEMORY_TOOL/UNSAFE_PATH; a file where a directory should be means
 * the path does not exist.
 */
async function walk(base: string, path: string): Promise<"file" | "directory" | "missing"> {
  if (path === "") return "directory";
  const segments = path.split("/");
  let at = base;
  for (let i = 0; i < segments.length; i++) {
    at = join(at, segments[i]!);
    const info = await lstat(at).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
      throw error;
    });
    if (info === undefined) return "missing";
    if (info.isSymbolicLink()) throw unsafe(base, at, "a symbolic link");
    const last = i === segments.length - 1;
    if (info.isDirectory()) {
      if (last) return "directory";
      continue;
    }
    if (!info.isFile()) throw unsafe(base, at, "not a regular file");
    return last ? "file" : "missing";
  }
  return "missing";
}

/** Removes the now-empty directories from `path`'s parent up to (not including) the tree's folder. */
async function prune(base: string, path: string): Promise<void> {
  const segments = path.split("/");
  for (let depth = segments.length - 1; depth >= 1; depth--) {
    const removed = await rmdir(join(base, ...segments.slice(0, depth))).then(
      () => true,
      () => false,
    );
    if (!removed) return;
  }
}

/** Temp files and trash of writers that crashed (only lock holders make them; we hold the lock). */
async function removeAbandoned(dir: string): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const at = join(dir, entry.name);
    if (entry.name.startsWith(".") && (entry.name.includes(".tmp-") || entry.name.startsWith(".trash-"))) await rm(at, { recursive: true, force: true });
    else if (entry.isDirectory()) await removeAbandoned(at);
  }
}

/** The model is told the path under /memories only; the file's place on disk goes to `details.file`. */
function unsafe(base: string, path: string, what: string) {
  const shown = path === base ? "/memories" : `/memories/${relative(base, path).split(sep).join("/")}`;
  return memoryToolError("UNSAFE_PATH", `${shown} is ${what} in the memory store; the memory tool never follows links or opens special files`, { file: path });
}

/** The folders above `segments`' last name, made where missing; each must be a real directory (never a symbolic link). */
async function makeParents(base: string, segments: readonly string[]): Promise<void> {
  for (let depth = 1; depth < segments.length; depth++) {
    const dir = join(base, ...segments.slice(0, depth));
    await mkdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
    const info = await lstat(dir);
    if (!info.isDirectory()) throw unsafe(base, dir, info.isSymbolicLink() ? "a symbolic link" : "not a directory");
  }
}
