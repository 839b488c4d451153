import { randomBytes } from "node:crypto";
import { open, readdir, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { errnoOf } from "./storage-errors.js";

/**
 * Replaces `target` with `data` so that, whatever happens (crash, power loss, a failing disk),
 * the file afterwards holds the old content or the new content, never a mix or nothing:
 *
 * 1. write a temp file in the same folder (`<target>.tmp-<pid>-<random>`, same file system),
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

/** The temp-file prefix of `target`; it never ends in `.jsonl`, so listings never mistake it for a session. */
export function tempPrefixFor(target: string): string {
  return `${basename(target)}.tmp-`;
}

function tempPathFor(target: string): string {
  return join(dirname(target), `${tempPrefixFor(target)}${process.pid}-${randomBytes(6).toString("hex")}`);
}

/** Deletes temp files a crashed rewrite of `target` left behind. Call only while holding the target's lock. */
export async function removeTempFiles(target: string): Promise<number> {
  const prefix = tempPrefixFor(target);
  let names: string[];
  try {
    names = await readdir(dirname(target));
  } catch {
    return 0;
  }
  const stale = names.filter((name) => name.startsWith(prefix));
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
