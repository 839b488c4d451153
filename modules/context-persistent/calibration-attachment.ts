/**
 * The session's token calibration (contracts/TOKENS.md §8), kept beside its JSONL file as
 * `<agent folder>/<sessionId>.calibration.json` (the agent's folder from jsonlSessionPaths:
 * `<storagePath>` for the default agent, `<storagePath>/agents/<agentId>` otherwise): read once when the session opens, rewritten
 * atomically (temp file + rename) after every recorded bill, writes serialised. Only the embedded
 * JSONL store has a folder to keep it in; with another store the calibration lives in memory.
 *
 * | situation                           | what happens                                               |
 * |-------------------------------------|------------------------------------------------------------|
 * | no file                             | an empty calibration (the family's default factors)        |
 * | a file that is not a valid record   | an empty calibration, reported (context:storage_degraded)  |
 * | a write fails                       | the calibration goes on in memory, reported once per error |
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { TokenCalibration, type CalibrationRecord } from "@amplifier-ts/context-manager";
import { jsonlSessionPaths } from "@amplifier-ts/stores";

export interface CalibrationFile {
  readonly path: string;
  readonly calibration: TokenCalibration;
  /** Set when the file existed but could not be used. */
  readonly problem?: string;
  save(record: CalibrationRecord): Promise<void>;
}

export async function openCalibrationFile(storagePath: string, agentId: string, sessionId: string, onWriteError: (reason: string) => Promise<void>): Promise<CalibrationFile> {
  const path = join(jsonlSessionPaths(storagePath, agentId, sessionId).dir, `${sessionId}.calibration.json`);
  let calibration = new TokenCalibration();
  let problem: string | undefined;
  try {
    calibration = TokenCalibration.fromJSON(JSON.parse(await readFile(path, "utf8")));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") problem = `calibration file ${path} cannot be used (${error instanceof Error ? error.message : String(error)}); starting from the default factors`;
  }
  let queue: Promise<void> = Promise.resolve();
  let lastError: string | undefined;
  const write = async (record: CalibrationRecord) => {
    const temp = `${path}.${process.pid}.tmp`;
    try {
      await writeFile(temp, `${JSON.stringify(record)}\n`, "utf8");
      await rename(temp, path);
      lastError = undefined;
    } catch (error) {
      const reason = `calibration file ${path} cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)}); the calibration goes on in memory`;
      if (reason !== lastError) await onWriteError(reason);
      lastError = reason;
    }
  };
  return {
    path,
    calibration,
    ...(problem === undefined ? {} : { problem }),
    save(record) {
      queue = queue.then(() => write(record));
      return queue;
    },
  };
}
