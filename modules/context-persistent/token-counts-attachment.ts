/**
 * The session's carried token counts (core carried-counts.ts), kept as the session's attachment
 * "counts" in its store (session-attachment.ts) — for the JSONL store the file it always was,
 * `<agent folder>/<sessionId>.counts.json`: read when the session opens (a resume then counts
 * again only the messages nobody counted before, and loads no tokenizer when none is left),
 * written when it closes. A store without attachments (or the memory fallback) carries nothing.
 *
 * | situation                                   | what happens                                                   |
 * |---------------------------------------------|----------------------------------------------------------------|
 * | no attachment                               | nothing carried: every message is counted when first needed    |
 * | one that is not a valid record, or unreadable | nothing carried, reported (context:storage_degraded)         |
 * | the write at close fails                    | reported (context:storage_degraded); the next resume counts again |
 *
 * A carried count is used only for a message that hashes to the same count snapshot, so a stale
 * or foreign record can cost a recount, never a wrong count.
 */
import { importTokenCounts, type CarriedTokenCounts } from "@amplifier-ts/tokens";
import { failureText, type SessionAttachment } from "./session-attachment.js";

export const TOKEN_COUNTS_ATTACHMENT = "counts";

export interface TokenCountsAttachment {
  readonly where: string;
  /** Set when the attachment existed (or could not be read) but could not be used. */
  readonly problem?: string;
  /** Writes the counts; resolves with the reason when it could not. */
  save(counts: CarriedTokenCounts): Promise<string | undefined>;
}

export async function openTokenCounts(attachment: SessionAttachment): Promise<TokenCountsAttachment> {
  const { where } = attachment;
  let problem: string | undefined;
  try {
    const text = await attachment.read();
    if (text !== undefined) importTokenCounts(JSON.parse(text));
  } catch (error) {
    problem = `${where} cannot be used (${failureText(error)}); the resume counts its window again`;
  }
  return {
    where,
    ...(problem === undefined ? {} : { problem }),
    async save(counts) {
      try {
        await attachment.write(`${JSON.stringify(counts)}\n`);
        return undefined;
      } catch (error) {
        return `${where} cannot be written (${failureText(error)}); the next resume counts its window again`;
      }
    },
  };
}
