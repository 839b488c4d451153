import { readFile, readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { isAbandonedTemp, isTempFileOf, syncDirectory, writeFileAtomic } from "./atomic-file.js";
import { ensureDirectory } from "./ensure-directory.js";
import { errnoOf, storageUnavailable, storageWriteFailed } from "./storage-errors.js";

/**
 * The JSONL store's session attachments: one file each, `<agent folder>/<session>.<name>.json`
 * (jsonlAttachmentPath, jsonl-paths.ts).
 *
 * | operation | how | failure |
 * |---|---|---|
 * | read | the whole file as UTF-8; no file → `undefined`. Takes no lock: a write replaces the file by a rename, so a reader sees the old text or the new | STORAGE_UNAVAILABLE |
 * | write | temp file, fsync, rename over the target, fsync the folder (atomic-file.ts), under the session's lock (the store's single writer) | STORAGE_WRITE_FAILED, the old text left in place |
 * | delete (with the session) | every `<session>.<name>.json` of the folder and their temp files | STORAGE_WRITE_FAILED |
 */
export async function readJsonlAttachment(path: string, module: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return undefined;
    throw storageUnavailable(error, module, path, `read the attachment ${path}`);
  }
}

export async function writeJsonlAttachment(dir: string, path: string, text: string, module: string): Promise<void> {
  try {
    await ensureDirectory(dir);
    await writeFileAtomic(path, Buffer.from(text, "utf8"));
  } catch (error) {
    throw storageWriteFailed(error, module, path, `write the attachment ${path}`);
  }
  await syncDirectory(dir).catch(() => undefined);
}

/** Deletes the session's attachments (call while holding its lock). Returns how many files went. */
export async function deleteJsonlAttachments(dir: string, sessionId: string, module: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return 0;
    throw storageWriteFailed(error, module, dir, "list the session's attachments");
  }
  const prefix = `${sessionId}.`;
  const doomed = names.filter((name) => (name.startsWith(prefix) && ATTACHMENT_FILE.test(name.slice(prefix.length))) || isAttachmentTempOf(dir, sessionId, name));
  for (const name of doomed) {
    await unlink(join(dir, name)).catch((error: unknown) => {
      if (errnoOf(error) !== "ENOENT") throw storageWriteFailed(error, module, join(dir, name), "delete the session's attachment");
    });
  }
  return doomed.length;
}

/**
 * Deletes the temp files of the session's attachments that a killed writer left
 * (`.<session>.<name>.json.tmp-<pid>-<hex>`): only those provably abandoned (isAbandonedTemp: the
 * writing pid is gone, or the file is older than ABANDONED_TEMP_AGE_MS). Called when the
 * session's writer opens it; a failure to list or delete leaves them for the next open.
 */
export async function removeAbandonedAttachmentTemps(dir: string, sessionId: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!isAttachmentTempOf(dir, sessionId, name) || !(await isAbandonedTemp(dir, name))) continue;
    await unlink(join(dir, name)).then(
      () => removed++,
      () => undefined,
    );
  }
  return removed;
}

/** Whether `name` is a temp file of one of the session's attachments: `.<session>.<name>.json.tmp-<pid>-<hex>` (atomic-file.ts). */
function isAttachmentTempOf(dir: string, sessionId: string, name: string): boolean {
  const prefix = `.${sessionId}.`;
  const end = name.indexOf(".json.tmp-");
  if (!name.startsWith(prefix) || end < 0) return false;
  return ATTACHMENT_FILE.test(name.slice(prefix.length, end + 5)) && isTempFileOf(join(dir, name.slice(1, end + 5)), name);
}

/** What follows `<session>.` in an attachment's file name: a name (no dot) and `.json`. */
const ATTACHMENT_FILE = /^[A-Za-z0-9_-]{1,64}\.json$/;
