/**
 * The excerpts of the session's spilled inputs (context-manager carried-spills.ts), kept as the
 * session's attachment "spills" in its store (session-attachment.ts) — for the JSONL store
 * `<agent folder>/<sessionId>.spills.json`: read when the session opens (a resume then takes each
 * spilled message's excerpt as it was, and neither excerpts nor loads a tokenizer for it), written
 * when it closes. A store without attachments (or the memory fallback) carries nothing.
 *
 * | situation                                     | what happens                                                   |
 * |-----------------------------------------------|----------------------------------------------------------------|
 * | no attachment                                 | nothing carried: each spilled message in reach is excerpted again |
 * | one that is not a valid record, or unreadable | nothing carried, reported (context:storage_degraded)           |
 * | the write at close fails                      | reported (context:storage_degraded); the next resume excerpts again |
 *
 * A carried excerpt is used only for a message with the same handle (hash of its id and text),
 * the same count and the same counter and budget, so a stale record costs an excerpt, never a
 * different window.
 */
import { importCarriedSpills, type CarriedSpill, type CarriedSpills } from "@amplifier-ts/context-manager";
import { failureText, type SessionAttachment } from "./session-attachment.js";

export const SPILLS_ATTACHMENT = "spills";

export interface SpillsAttachment {
  readonly where: string;
  /** The carried excerpts by message id (empty when there was no usable record). */
  readonly carried: ReadonlyMap<string, CarriedSpill>;
  /** Set when the attachment existed (or could not be read) but could not be used. */
  readonly problem?: string;
  /** Writes the record unless there is nothing to say (no spill now, none before); resolves with the reason when it could not. */
  save(spills: CarriedSpills): Promise<string | undefined>;
}

export async function openSpills(attachment: SessionAttachment): Promise<SpillsAttachment> {
  const { where } = attachment;
  let problem: string | undefined;
  let carried: ReadonlyMap<string, CarriedSpill> = new Map();
  let existed = false;
  try {
    const text = await attachment.read();
    existed = text !== undefined;
    if (text !== undefined) carried = importCarriedSpills(JSON.parse(text));
  } catch (error) {
    problem = `${where} cannot be used (${failureText(error)}); the resume excerpts its spilled inputs again`;
  }
  return {
    where,
    carried,
    ...(problem === undefined ? {} : { problem }),
    async save(spills) {
      // A session that never spilled writes nothing (no file beside every session).
      if (spills.spills.length === 0 && !existed) return undefined;
      try {
        await attachment.write(`${JSON.stringify(spills)}\n`);
        existed = true;
        return undefined;
      } catch (error) {
        return `${where} cannot be written (${failureText(error)}); the next resume excerpts its spilled inputs again`;
      }
    },
  };
}
