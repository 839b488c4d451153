/**
 * The session's carried token counts (core carried-counts.ts), kept beside its JSONL file as
 * `<agent folder>/<sessionId>.counts.json`: read when the session opens (a resume then counts
 * again only the messages nobody counted before), written atomically when it closes. Only the
 * embedded JSONL store has a folder to keep it in.
 *
 * | situation                        | what happens                                                   |
 * |----------------------------------|----------------------------------------------------------------|
 * | no file                          | nothing carried: every message is counted when first needed    |
 * | a file that is not a valid record | nothing carried, reported (context:storage_degraded)          |
 * | the write at close fails         | reported (context:storage_degraded); the next resume counts again |
 *
 * A carried count is used only for a message that hashes to the same count snapshot, so a stale
 * or foreign file can cost a recount, never a wrong count.
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { importTokenCounts, type CarriedTokenCounts } from "@amplifier-ts/core";
import { jsonlSessionPaths } from "@amplifier-ts/stores";

export interface TokenCountsFile {
  readonly path: string;
  /** Set when the file existed but could not be used. */
  readonly problem?: string;
  save(counts: CarriedTokenCounts): Promise<string | undefined>;
}

export async function openTokenCountsFile(storagePath: string, agentId: string, sessionId: string): Promise<TokenCountsFile> {
  const path = join(jsonlSessionPaths(storagePath, agentId, sessionId).dir, `${sessionId}.counts.json`);
  let problem: string | undefined;
  try {
    importTokenCounts(JSON.parse(await readFile(path, "utf8")));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") problem = `token counts file ${path} cannot be used (${error instanceof Error ? error.message : String(error)}); the resume counts its window again`;
  }
  return {
    path,
    ...(problem === undefined ? {} : { problem }),
    /** Writes the counts (temp file + rename); resolves with the reason when it could not. */
    async save(counts) {
      const temp = `${path}.${process.pid}.tmp`;
      try {
        await writeFile(temp, `${JSON.stringify(counts)}\n`, "utf8");
        await rename(temp, path);
        return undefined;
      } catch (error) {
        return `token counts file ${path} cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)}); the next resume counts its window again`;
      }
    },
  };
}
