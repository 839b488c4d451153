import { randomUUID } from "node:crypto";
import { open, readFile, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createError } from "@amplifier-ts/contracts";
import { errnoOf, storageUnavailable } from "./storage-errors.js";

/**
 * One writer per session: a lock file created with O_EXCL that names its owner.
 *
 * The owner record is JSON `{ pid, host, token, createdAt }`. An existing lock is judged by it:
 *
 * | lock file says | verdict |
 * |---|---|
 * | another host | held: its pid cannot be checked from here |
 * | our pid, and this process holds the path | held by another store instance in this process |
 * | our pid, not held by this process | stale: an earlier process had our pid (pid 1 in containers) |
 * | a live pid (`kill(pid, 0)` succeeds or EPERM) | held |
 * | a dead pid | stale: taken over |
 * | unreadable after a short wait | stale (our writers never leave one: they write it right after creating it) |
 *
 * Taking over a stale lock happens under a second, short-lived guard file (`<lock>.takeover`, also
 * O_EXCL), and only if the lock still holds the exact stale record read before: two processes
 * finding the same stale lock cannot both take it. A live process that reuses a dead owner's pid
 * keeps the lock held; the error names the holder's pid and says how to check it (never "delete
 * the lock" while its writer may run).
 */
export interface FileLock {
  readonly path: string;
  /** Removes the lock file if it is still ours. Never throws; idempotent. */
  release(): Promise<void>;
}

interface LockOwner {
  pid: number;
  host: string;
  token: string;
  createdAt: string;
}

/** Lock paths held by this process, to refuse a second store instance on the same session. */
const heldHere = new Set<string>();

const ATTEMPTS = 5;

export async function acquireLock(lockPath: string, module: string, sessionId: string): Promise<FileLock> {
  const path = resolve(lockPath);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const owner: LockOwner = { pid: process.pid, host: hostname(), token: randomUUID(), createdAt: new Date().toISOString() };
    if (await tryCreate(path, owner, module)) {
      heldHere.add(path);
      return makeLock(path, owner.token);
    }
    const existing = await readOwner(path);
    if (existing === "missing") continue;
    const verdict = judge(path, existing);
    if (verdict === "held") throw lockedError(path, sessionId, module, existing as LockOwner);
    await takeOver(path, existing, module);
  }
  throw createError("SESSION_LOCKED", `Session "${sessionId}" changes hands too fast to lock`, {
    module,
    file: path,
    hint: "several writers are racing for this session",
  });
}

/** True once our record is in place; false when the file exists. */
async function tryCreate(path: string, owner: LockOwner, module: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, "wx", 0o644);
  } catch (error) {
    if (errnoOf(error) === "EEXIST") return false;
    throw storageUnavailable(error, module, path, "create the session lock file");
  }
  let failure: unknown;
  try {
    await handle.writeFile(`${JSON.stringify(owner)}\n`);
  } catch (error) {
    failure = error ?? new Error("write failed");
  } finally {
    await handle.close().catch(() => undefined);
  }
  if (failure === undefined) return true;
  await unlink(path).catch(() => undefined);
  throw storageUnavailable(failure, module, path, "write the session lock file");
}

type ReadOwner = LockOwner | "missing" | "unreadable";

async function readOwner(path: string): Promise<ReadOwner> {
  // A lock created a moment ago may still be empty: its writer fills it right after O_EXCL.
  for (let wait = 0; wait < 4; wait++) {
    let raw: string;
    try {
      raw = await readFile(path, "utf8");
    } catch (error) {
      if (errnoOf(error) === "ENOENT") return "missing";
      return "unreadable";
    }
    const owner = parseOwner(raw);
    if (owner) return owner;
    await sleep(25);
  }
  return "unreadable";
}

function parseOwner(raw: string): LockOwner | undefined {
  try {
    const value = JSON.parse(raw) as Partial<LockOwner>;
    if (Number.isSafeInteger(value.pid) && typeof value.host === "string" && typeof value.token === "string") {
      return { pid: value.pid!, host: value.host, token: value.token, createdAt: String(value.createdAt ?? "") };
    }
  } catch {
    // Bare pids (written by hand or by older tools) are accepted too.
    const pid = Number(raw.trim());
    if (Number.isSafeInteger(pid) && pid > 0) return { pid, host: hostname(), token: "", createdAt: "" };
  }
  return undefined;
}

function judge(path: string, owner: LockOwner | "unreadable"): "held" | "stale" {
  if (owner === "unreadable") return "stale";
  if (owner.host !== hostname()) return "held";
  if (owner.pid === process.pid) return heldHere.has(path) ? "held" : "stale";
  return isAlive(owner.pid) ? "held" : "stale";
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoOf(error) === "EPERM";
  }
}

async function takeOver(path: string, stale: LockOwner | "unreadable", module: string): Promise<void> {
  const guard = `${path}.takeover`;
  const me: LockOwner = { pid: process.pid, host: hostname(), token: randomUUID(), createdAt: new Date().toISOString() };
  if (!(await tryCreate(guard, me, module))) {
    // Someone else is taking over; a guard whose owner died is removed so the next attempt can.
    const other = await readOwner(guard);
    if (other !== "missing" && judge(guard, other) === "stale") await unlink(guard).catch(() => undefined);
    else await sleep(20);
    return;
  }
  try {
    const now = await readOwner(path);
    const unchanged = now === "unreadable" ? stale === "unreadable" : now !== "missing" && stale !== "unreadable" && now.token === stale.token && now.pid === stale.pid;
    if (unchanged) await unlink(path).catch(() => undefined);
  } finally {
    await unlink(guard).catch(() => undefined);
  }
}

function makeLock(path: string, token: string): FileLock {
  let released: Promise<void> | undefined;
  return {
    path,
    release() {
      released ??= (async () => {
        heldHere.delete(path);
        const owner = await readOwner(path).catch(() => "missing" as const);
        if (owner !== "missing" && owner !== "unreadable" && owner.token === token) await unlink(path).catch(() => undefined);
      })();
      return released;
    },
  };
}

/**
 * The holder was judged alive (same host: its pid answers kill 0), or cannot be checked (another
 * host): the advice says how to tell and never to delete the lock of a writer that runs — a lock
 * whose process has exited is taken over by the next writer on its own.
 */
function lockedError(path: string, sessionId: string, module: string, owner: LockOwner) {
  const here = owner.host === hostname();
  const where = here ? (owner.pid === process.pid ? "another store in this process" : `process ${owner.pid}, which is running`) : `process ${owner.pid} on host ${owner.host}`;
  const hint = !here
    ? `one writer per session: stop process ${owner.pid} on ${owner.host} first; its state cannot be checked from here — delete ${path} only after making sure that process no longer runs (\`ps -p ${owner.pid}\` on ${owner.host}). Reading needs no lock: open the store readOnly`
    : owner.pid === process.pid
      ? "one writer per session: close the other store of this process (closeSession or close) before opening the session here, or open this one readOnly to read it"
      : `one writer per session: process ${owner.pid} is alive (\`ps -p ${owner.pid}\` shows it) — let it finish or stop it; do not delete the lock file while it runs (once it has exited, the next writer takes the lock over by itself). Reading needs no lock: open the store readOnly (the Inspector, sessions show and replay do)`;
  return createError("SESSION_LOCKED", `Session "${sessionId}" is open for writing by ${where}${owner.createdAt ? ` since ${owner.createdAt}` : ""}`, {
    module,
    file: path,
    owner,
    hint,
  });
}
