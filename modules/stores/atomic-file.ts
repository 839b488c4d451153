import { randomBytes } from "node:crypto";
import { open, readdir, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { errnoOf } from "./storage-errors.js";

/**
 * Replaces `target` with `data` so that, whatever happens (crash, power loss, a failing disk),
 * the file afterwards holds the old content or the new content, never a mix or nothing:
 *
 * 1. write a temp file in the same folder (`.<target>.tmp-<pid>-<random>`, same file system),
 * 2. fsync it (its data is on disk before its name is),
 * 3. rename it over the target (atomic on POSIX),
 * 4. fsync the folder (the rename itself is on disk) — the caller's step, `syncDirectory`, so it
 *    can tell a failure before the rename (target unchanged: this function threw) from one after
 *    it (new content in place, durability unconfirmed).
 *
 * The fsyncs happen in every fsync mode: rewrites are rare (setMessages, clear, clearRun) and
 * skipping them could leave an empty file after a power loss — the whole history, not the last
 * few messages. A failure before the rename removes the temp file and leaves the target as it
 * was; a crash leaves at most a temp file, which `removeTempFiles` deletes the next time the
 * session is opened by its single writer.
 */
export async function writeFileAtomic(target: string, data: Uint8Array, mode = 0o600): Promise<void> {
  const temp = tempPathFor(target);
  writing.add(temp);
  try {
    await writeThenRename(temp, target, data, mode);
  } finally {
    writing.delete(temp);
  }
}

async function writeThenRename(temp: string, target: string, data: Uint8Array, mode: number): Promise<void> {
  const handle = await open(temp, "wx", mode);
  try {
    let written = 0;
    while (written < data.length) {
      const { bytesWritten } = await handle.write(data, written, data.length - written);
      written += bytesWritten;
    }
    await handle.datasync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/**
 * Temp-file names. A temp name must never be the name of another session's file, and the cleanup
 * must never match one: session ids may contain `.jsonl.tmp-` (`a.jsonl.tmp-x` is valid), so a
 * plain prefix match on `<target>.tmp-` once deleted session `a.jsonl.tmp-x`'s file and lock while
 * its writer held them. So:
 *
 * | name | why it cannot collide |
 * |---|---|
 * | `.<target>.tmp-<pid>-<12 hex>` (written) | starts with a dot, which no session id does (session-id.ts), so it is no session's file; it does not end in `.jsonl`, so listings skip it |
 * | `<target>.tmp-<pid>-<12 hex>` (left by earlier versions, still removed) | every file of a session ends in `.jsonl`, `.jsonl.index` (its sidecar index), `.lock` or `.takeover`, never in `-<12 hex>` |
 *
 * The cleanup matches a whole name, not a prefix: `<pid>` is digits and the random part exactly
 * 12 hex digits, so the name of one target's temp file can never match another target's pattern.
 */
const RANDOM_BYTES = 6;

function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.tmp-${process.pid}-${randomBytes(RANDOM_BYTES).toString("hex")}`);
}

/** Whether `name` (a file name in the target's folder) is a temp file of `target`, current or legacy. */
export function isTempFileOf(target: string, name: string): boolean {
  const base = basename(target);
  const rest = name.startsWith(`.${base}.tmp-`) ? name.slice(base.length + 6) : name.startsWith(`${base}.tmp-`) ? name.slice(base.length + 5) : undefined;
  return rest !== undefined && TEMP_SUFFIX.test(rest);
}

const TEMP_SUFFIX = new RegExp(`^[0-9]+-[0-9a-f]{${RANDOM_BYTES * 2}}$`);

/** Temp files this process is writing now (writeFileAtomic): never abandoned, whatever their pid says. */
const writing = new Set<string>();

/** An unchanged temp file this old is abandoned whoever named it: an attachment write takes milliseconds. */
export const ABANDONED_TEMP_AGE_MS = 60 * 60 * 1000;

/**
 * Whether the temp file `name` in `dir` is provably abandoned — safe to delete even where its
 * writer might not hold the lock it should (the name carries the writer's pid):
 *
 * | the temp file | verdict |
 * |---|---|
 * | being written by this process (the `writing` registry) | in flight |
 * | not modified for ABANDONED_TEMP_AGE_MS | abandoned, whoever wrote it (a pid since reused, another host) |
 * | named with our pid, not being written by us | abandoned: an earlier process had our pid (pid 1 in containers) |
 * | named with a live pid (`kill(pid, 0)` succeeds or EPERM) | in flight |
 * | named with a dead pid (ESRCH) | abandoned: its writer was killed mid-write |
 * | not a temp name, or gone | not ours to delete |
 */
export async function isAbandonedTemp(dir: string, name: string, now = Date.now()): Promise<boolean> {
  const pid = Number(/\.tmp-([0-9]+)-[0-9a-f]{12}$/.exec(name)?.[1]);
  const path = join(dir, name);
  if (!Number.isSafeInteger(pid) || pid <= 0 || writing.has(path)) return false;
  let modified: number;
  try {
    modified = (await stat(path)).mtimeMs;
  } catch {
    return false;
  }
  if (now - modified > ABANDONED_TEMP_AGE_MS || pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return errnoOf(error) === "ESRCH";
  }
}

/** Deletes temp files a crashed rewrite of `target` left behind. Call only while holding the target's lock. */
export async function removeTempFiles(target: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dirname(target));
  } catch {
    return 0;
  }
  const stale = names.filter((name) => isTempFileOf(target, name));
  await Promise.all(stale.map((name) => unlink(join(dirname(target), name)).catch(() => undefined)));
  return stale.length;
}

/**
 * Makes a folder's entries (a new file, a rename, an unlink) durable. Some platforms cannot open
 * or fsync a folder (Windows: EPERM/EISDIR; some network file systems: EINVAL); there the
 * guarantee is the file system's and the call does nothing.
 */
export async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, "r");
  } catch (error) {
    if (UNSUPPORTED.has(errnoOf(error) ?? "")) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!UNSUPPORTED.has(errnoOf(error) ?? "")) throw error;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

const UNSUPPORTED = new Set(["EPERM", "EISDIR", "EINVAL", "ENOTSUP", "EBADF"]);
