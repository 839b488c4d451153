import type { RecordIndex } from "./jsonl-scan.js";
import type { EncodedMessage } from "./message-codec.js";

/**
 * Byte layout of a session file: records separated by `\n`, each record's position kept in a
 * RecordIndex so reads can fetch exactly the bytes they need. These helpers build file contents
 * and their index together, so the two can never disagree.
 */
export interface Layout {
  body: Buffer;
  index: RecordIndex;
}

export const emptyIndex = (): RecordIndex => ({ starts: [], ends: [], runIds: [] });

/** A whole file of `records` (replace, clear). */
export function layoutRecords(records: EncodedMessage[]): Layout {
  const body = Buffer.from(records.length ? `${records.map((r) => r.json).join("\n")}\n` : "");
  const index = emptyIndex();
  extendIndex(index, records, 0);
  return { body, index };
}

/** The records of `data` (laid out by `index`) for which `keep(i)` holds, bytes untouched (clearRun). */
export function keepRecords(data: Buffer, index: RecordIndex, keep: (i: number) => boolean): Layout {
  const pieces: Buffer[] = [];
  const kept = emptyIndex();
  let position = 0;
  for (let i = 0; i < index.starts.length; i++) {
    if (!keep(i)) continue;
    const record = data.subarray(index.starts[i]!, index.ends[i]!);
    pieces.push(record, NEWLINE);
    kept.starts.push(position);
    kept.ends.push(position + record.length);
    kept.runIds.push(index.runIds[i]);
    position += record.length + 1;
  }
  return { body: Buffer.concat(pieces, position), index: kept };
}

/** Records `records`, written back to back from byte `position`, in `index`; returns the end. */
export function extendIndex(index: RecordIndex, records: EncodedMessage[], position: number): number {
  for (const record of records) {
    const length = Buffer.byteLength(record.json);
    index.starts.push(position);
    index.ends.push(position + length);
    index.runIds.push(record.runId);
    position += length + 1;
  }
  return position;
}

const NEWLINE = Buffer.from("\n");
