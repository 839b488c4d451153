import { randomUUID } from "node:crypto";
import { open, readFile, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { memoryToolError } from "./memory-tool-errors.js";

/**
 * One writer per memory tree at a time, across processes: a lock file created with O_EXCL that
 * names its owner `{ pid, host, token, createdAt }`. Held only for one command's
 * read-modify-write (milliseconds), so a contender polls (5 ms, doubling to 50 ms) until
 * `timeoutMs`, then fails with MEMORY_TOOL/TREE_BUSY. Contenders in one process queue on a promise
 * chain first, so only one of them polls the file.
 *
 * | the lock file says | verdict |
 * |---|---|
 * | this host, a pid that does not run (`kill(pid, 0)` → ESRCH) | stale: taken over |
 * | this host, our pid, and this process holds it | held (by another store of this process) |
 * | this host, our pid, not held here | stale: an earlier process had our pid (pid 1 in containers) |
 * | this host, another live pid | held |
 * | another host | held (its pid cannot be checked from here) |
 * | unreadable (empty, torn) and not modified for 5 s | stale (a writer fills it right after creating it) |
 *
 * Taking a stale lock over happens under a guard file (`<lock>.takeover`, O_EXCL too) and only if
 * the lock still holds the exact record judged stale, so two processes finding the same stale
 * lock cannot both take it; a guard whose owner died is removed the same way.
 */
/** Lock files this process holds now. */
const heldHere = new Set<string>();
/** One queue per lock file in this process, whichever store instance asks. */
const queues = new Map<string, Promise<unknown>>();
const UNREADABLE_STALE_MS = 5_000;

export class TreeLock {
  readonly #path: string;
  readonly #timeoutMs: number;

  constructor(path: string, timeoutMs: number) {
    this.#path = path;
    this.#timeoutMs = timeoutMs;
  }

  /** Runs `fn` holding the lock; releases it whatever happens. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const turn = (queues.get(this.#path) ?? Promise.resolve()).then(async () => {
      const token = await this.#acquire();
      heldHere.add(this.#path);
      try {
        return await fn();
      } finally {
        heldHere.delete(this.#path);
        await this.#release(token);
      }
    });
    const settled = turn.catch(() => undefined);
    queues.set(this.#path, settled);
    void settled.then(() => {
      if (queues.get(this.#path) === settled) queues.delete(this.#path);
    });
    return turn;
  }

  async #acquire(): Promise<string> {
    const deadline = Date.now() + this.#timeoutMs;
    let wait = 5;
    for (;;) {
      const owner: Owner = { pid: process.pid, host: hostname(), token: randomUUID(), createdAt: new Date().toISOString() };
      if (await create(this.#path, owner)) return owner.token;
      const held = await readOwner(this.#path);
      if (held !== "missing" && (await isStale(this.#path, held))) {
        await takeOver(this.#path, held);
        continue;
      }
      if (Date.now() >= deadline) {
        const who = held === "missing" || held === "unreadable" ? "another writer" : `process ${held.pid} on ${held.host}`;
        throw memoryToolError("TREE_BUSY", `the memory directory is being changed by ${who} and stayed locked for ${this.#timeoutMs} ms; try the command again`, { file: this.#path, timeoutMs: this.#timeoutMs });
      }
      await sleep(wait);
      wait = Math.min(wait * 2, 50);
    }
  }

  async #release(token: string): Promise<void> {
    const owner = await readOwner(this.#path);
    if (owner !== "missing" && owner !== "unreadable" && owner.token === token) await unlink(this.#path).catch(() => undefined);
  }
}

interface Owner {
  pid: number;
  host: string;
  token: string;
  createdAt: string;
}

async function create(path: string, owner: Owner): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, "wx", 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    await handle.writeFile(`${JSON.stringify(owner)}\n`);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return true;
}

async function readOwner(path: string): Promise<Owner | "missing" | "unreadable"> {
  for (let attempt = 0; attempt < 4; attempt++) {
    let raw: string;
    try {
      raw = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return "missing";
      return "unreadable";
    }
    try {
      const value = JSON.parse(raw) as Partial<Owner>;
      if (Number.isSafeInteger(value.pid) && typeof value.host === "string" && typeof value.token === "string") return value as Owner;
    } catch {
      // Being written: its creator fills it right after O_EXCL.
    }
    await sleep(25);
  }
  return "unreadable";
}

async function isStale(path: string, owner: Owner | "unreadable"): Promise<boolean> {
  if (owner === "unreadable") {
    const modified = await stat(path).then((s) => s.mtimeMs, () => undefined);
    return modified === undefined || Date.now() - modified > UNREADABLE_STALE_MS;
  }
  if (owner.host !== hostname()) return false;
  if (owner.pid === process.pid) return !heldHere.has(path);
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

async function takeOver(path: string, stale: Owner | "unreadable"): Promise<void> {
  const guard = `${path}.takeover`;
  const me: Owner = { pid: process.pid, host: hostname(), token: randomUUID(), createdAt: new Date().toISOString() };
  if (!(await create(guard, me))) {
    const other = await readOwner(guard);
    if (other !== "missing" && (await isStale(guard, other))) await unlink(guard).catch(() => undefined);
    else await sleep(10);
    return;
  }
  try {
    const now = await readOwner(path);
    const same = now === "unreadable" ? stale === "unreadable" : now !== "missing" && stale !== "unreadable" && now.token === stale.token;
    if (same) await unlink(path).catch(() => undefined);
  } finally {
    await unlink(guard).catch(() => undefined);
  }
}
