/**
 * Appends are idempotent by message id (HistoryStore contract, "idempotent appends"): a retry of a
 * message whose first write may or may not have been stored — the reply was lost, the process
 * crashed after the write — is a no-op where it was stored, so retrying is always safe.
 *
 * | the call appends | result |
 * |---|---|
 * | a message whose `metadata.id` the session holds | nothing for it (the stored one keeps its place and content) |
 * | the same id twice in one call | the first only |
 * | a message without an id (no `metadata.id`, or an empty one) | appended every time: it cannot be recognised (the context managers give every message an id) |
 *
 * Stores keep the ids they hold (a Set here; PostgreSQL a unique key, Redis a set in the
 * session's hash tag) and filter each call through `recordsToAppend` under their write order.
 */

/** What the filter needs of a record: its message id, when it has one. */
export interface IdentifiedRecord {
  facts: { id?: string | undefined };
}

/** The records of one append call that are not stored yet, in call order: ids `held` by the session and repeats within the call are left out. */
export function recordsToAppend<R extends IdentifiedRecord>(records: readonly R[], held: (id: string) => boolean): R[] {
  const seen = new Set<string>();
  const out: R[] = [];
  for (const record of records) {
    const id = record.facts.id;
    if (id !== undefined && id !== "") {
      if (seen.has(id) || held(id)) continue;
      seen.add(id);
    }
    out.push(record);
  }
  return out;
}
