/**
 * Spilled inputs carried from one process to the next (spilled-history.ts): the excerpt each
 * spilled message's window copy holds, so a resumed session neither builds the excerpt again nor
 * loads the tokenizer for it. context-persistent keeps the record as the session's attachment
 * "spills"; the copies' token counts travel with the carried token counts (carriedTokenCounts).
 *
 * | rule          | semantics                                                                 |
 * |---------------|---------------------------------------------------------------------------|
 * | what          | per spilled message still in the history: its id, its handle (sha256 of id and text), the whole message's tokens, the excerpt's token budget, the counter (encoding and safety factor), the query the excerpt was made for, and the excerpt text |
 * | used when     | the resumed message hashes to the same handle and counts the same tokens with a counter of the same encoding and factor, and the request's excerpt budget is the same: the copy is then the one the last process sent, byte for byte |
 * | else          | the excerpt is made again (as without a record): a stale record costs a recount, never a wrong window |
 * | counts        | the copy is counted like any message (exact, invariant 1): a carried count when the counts attachment has it, the tokenizer otherwise |
 * | bad record    | importCarriedSpills throws INVALID_ARGUMENT naming what is wrong; the module reports it and carries nothing |
 */
import { createError } from "@amplifier-ts/contracts";

export interface CarriedSpill {
  readonly messageId: string;
  readonly handle: string;
  /** Tokens of the whole message. */
  readonly tokens: number;
  /** The excerpt's budget it was made within (spill `excerptTokens`, bounded by the request's budget). */
  readonly maxTokens: number;
  /** Encoding and safety factor of the counter it was made with (counterKey). */
  readonly counter: string;
  /** The search terms it was made for, "\n"-joined (a `refocus` compares them with a new prompt's). */
  readonly queryKey: string;
  /** The text the copy's largest text part holds. */
  readonly excerpt: string;
}

export interface CarriedSpills {
  version: 1;
  spills: CarriedSpill[];
}

/** What identifies a counter's counts for a carried excerpt: its encoding and its safety factor. */
export function counterKey(counter: { readonly encoding: string; readonly safetyFactor: number }): string {
  return `${counter.encoding}|${counter.safetyFactor}`;
}

/** The records of an exported `CarriedSpills`, by message id; INVALID_ARGUMENT when `data` is not one. */
export function importCarriedSpills(data: unknown): Map<string, CarriedSpill> {
  const record = data as Partial<CarriedSpills> | null;
  if (typeof record !== "object" || record === null || record.version !== 1 || !Array.isArray(record.spills)) {
    throw createError("INVALID_ARGUMENT", "Not a record of carried spilled inputs", { module: "@amplifier-ts/context-manager", path: "data", expected: "{ version: 1, spills: [{ messageId, handle, tokens, maxTokens, counter, queryKey, excerpt }, …] }", given: data });
  }
  const out = new Map<string, CarriedSpill>();
  record.spills.forEach((spill: unknown, index) => {
    if (!isCarriedSpill(spill)) {
      throw createError("INVALID_ARGUMENT", `Carried spilled input ${index} is not a record`, { module: "@amplifier-ts/context-manager", path: `data.spills.${index}`, expected: "{ messageId, handle, queryKey, counter, excerpt: string; tokens, maxTokens: non-negative integers }", given: spill });
    }
    out.set(spill.messageId, spill);
  });
  return out;
}

function isCarriedSpill(value: unknown): value is CarriedSpill {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.messageId === "string" &&
    typeof v.handle === "string" &&
    typeof v.counter === "string" &&
    typeof v.queryKey === "string" &&
    typeof v.excerpt === "string" &&
    Number.isSafeInteger(v.tokens) &&
    (v.tokens as number) >= 0 &&
    Number.isSafeInteger(v.maxTokens) &&
    (v.maxTokens as number) >= 0
  );
}
