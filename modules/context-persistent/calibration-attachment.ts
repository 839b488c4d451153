/**
 * The session's token calibration (contracts/TOKENS.md §8), kept as the session's attachment
 * "calibration" in its store (session-attachment.ts) — for the JSONL store the file it always was,
 * `<agent folder>/<sessionId>.calibration.json`: read once when the session opens, rewritten
 * (atomically, by the store) after every recorded bill, writes serialised. A store without
 * attachments (or the memory fallback) keeps the calibration in memory.
 *
 * | situation                               | what happens                                               |
 * |-----------------------------------------|------------------------------------------------------------|
 * | no attachment                           | an empty calibration (the family's default factors)        |
 * | one that is not a valid record, or unreadable | an empty calibration, reported (context:storage_degraded) |
 * | a write fails                           | the calibration goes on in memory, reported once per error |
 */
import { TokenCalibration, type CalibrationRecord } from "@amplifier-ts/context-manager";
import { failureText, type SessionAttachment } from "./session-attachment.js";

export const CALIBRATION_ATTACHMENT = "calibration";

export interface CalibrationAttachment {
  readonly where: string;
  readonly calibration: TokenCalibration;
  /** Set when the attachment existed (or could not be read) but could not be used. */
  readonly problem?: string;
  save(record: CalibrationRecord): Promise<void>;
}

export async function openCalibration(attachment: SessionAttachment, onWriteError: (reason: string) => Promise<void>): Promise<CalibrationAttachment> {
  const { where } = attachment;
  let calibration = new TokenCalibration();
  let problem: string | undefined;
  try {
    const text = await attachment.read();
    if (text !== undefined) calibration = TokenCalibration.fromJSON(JSON.parse(text));
  } catch (error) {
    problem = `${where} cannot be used (${failureText(error)}); starting from the default factors`;
  }
  let queue: Promise<void> = Promise.resolve();
  let lastError: string | undefined;
  const write = async (record: CalibrationRecord) => {
    try {
      await attachment.write(`${JSON.stringify(record)}\n`);
      lastError = undefined;
    } catch (error) {
      const reason = `${where} cannot be written (${failureText(error)}); the calibration goes on in memory`;
      if (reason !== lastError) await onWriteError(reason);
      lastError = reason;
    }
  };
  return {
    where,
    calibration,
    ...(problem === undefined ? {} : { problem }),
    save(record) {
      queue = queue.then(() => write(record));
      return queue;
    },
  };
}
