import { open, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { SessionSummary } from "@amplifier-ts/contracts";
import { isValidSessionId } from "./session-id.js";
import { errnoOf, storageUnavailable } from "./storage-errors.js";

/** What a store knows about a session it holds open (exact, no disk read). */
export type KnownSummary = (sessionId: string) => Omit<SessionSummary, "sessionId"> | undefined;

const PARALLEL = 16;
const CHUNK = 1024 * 1024;

/**
 * Lists the `<sessionId>.jsonl` files of a folder, sorted by session id. Sessions this store holds
 * open are described from memory (exact). Others are counted without parsing: their count is the
 * number of complete non-blank lines, which equals the message count unless the file holds
 * corrupt records (`count(sessionId)` is exact: it opens the session). A missing folder lists
 * nothing; a folder that cannot be read is STORAGE_UNAVAILABLE.
 */
export async function listJsonlSessions(dir: string, known: KnownSummary, module: string): Promise<SessionSummary[]> {
  const ids = await listJsonlSessionIds(dir, module);
  const summaries: (SessionSummary | undefined)[] = [];
  for (let i = 0; i < ids.length; i += PARALLEL) {
    summaries.push(...(await Promise.all(ids.slice(i, i + PARALLEL).map((id) => describe(dir, id, known)))));
  }
  return summaries.filter((s): s is SessionSummary => s !== undefined);
}

/** The ids of the `<sessionId>.jsonl` files of a folder, sorted; a missing folder holds none. */
export async function listJsonlSessionIds(dir: string, module: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return [];
    throw storageUnavailable(error, module, dir, `list the session folder ${dir}`);
  }
  return names
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => name.slice(0, -".jsonl".length))
    .filter(isValidSessionId)
    .sort();
}

async function describe(dir: string, sessionId: string, known: KnownSummary): Promise<SessionSummary | undefined> {
  const held = known(sessionId);
  if (held) return { sessionId, ...held };
  const file = join(dir, `${sessionId}.jsonl`);
  try {
    const info = await stat(file);
    if (!info.isFile()) return undefined;
    return { sessionId, count: await countLines(file), bytes: info.size, updatedAt: info.mtime.toISOString() };
  } catch (error) {
    // Deleted between readdir and stat: it is simply not there any more.
    if (errnoOf(error) === "ENOENT") return undefined;
    throw error;
  }
}

/** Complete, non-blank lines; a torn tail (no `\n`) is not counted. */
async function countLines(file: string): Promise<number> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    let count = 0;
    let lineHasContent = false;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) return count;
      for (let i = 0; i < bytesRead; i++) {
        const byte = buffer[i]!;
        if (byte === 0x0a) {
          if (lineHasContent) count++;
          lineHasContent = false;
        } else if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) {
          lineHasContent = true;
        }
      }
    }
  } finally {
    await handle.close();
  }
}
