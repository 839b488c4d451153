/**
 * The embedder's vectors of the session's messages, kept as the session's attachments
 * `vectors-0`, `vectors-1` … in its store (session-attachment.ts: files beside a JSONL session, a
 * PostgreSQL table, a Redis hash), so a resume in a new process embeds nothing again
 * (VectorArchive, modules/search/message-vectors.ts).
 *
 * Each attachment is JSONL: a header line `{ "format": "amplifier-vectors", "version": 1,
 * "embedder": <name>, "dimensions": <n> }`, then one line per vector `{ "k": <text hash>, "v":
 * <base64 of the float32 values, little-endian> }`. An attachment holds as many vectors as fit in
 * SHARD_BYTES (2,048 vectors of 512 numbers ≈ 5.6 MB), under the stores' limit on an attachment.
 *
 * | situation                                            | what happens                                              |
 * |------------------------------------------------------|-----------------------------------------------------------|
 * | vectors computed                                     | queued; the attachment being filled is rewritten at most once per `delayMs` (500 ms), off the turn's path; `flush()` (indexReady, close) writes what is queued |
 * | resume, same embedder                                | every attachment read once, before anything is embedded   |
 * | resume, another embedder (its name differs)          | those vectors are not used; they are overwritten from `vectors-0` as the messages are embedded again |
 * | an attachment that cannot be read or is not this format | the vectors before it are used; it and those after it are written again (context:storage_degraded) |
 * | a write fails                                        | context:storage_degraded once; the vectors stay in memory, and the next resume embeds them again |
 */
import type { VectorArchive } from "@amplifier-ts/search";
import { failureText, type SessionAttachment } from "./session-attachment.js";

export const VECTORS_ATTACHMENT_PREFIX = "vectors-";
/** Text of one attachment at most (the stores accept 16 MiB). */
const SHARD_BYTES = 12 * 1024 * 1024;
const FORMAT = "amplifier-vectors";

interface Header {
  format: typeof FORMAT;
  version: 1;
  embedder: string;
  dimensions: number;
}

export interface VectorsAttachmentOptions {
  /** The attachment `vectors-<n>`. */
  attachment: (index: number) => SessionAttachment;
  /** Reports a problem (context:storage_degraded); called once per kind of problem. */
  degraded: (reason: string) => Promise<void>;
  /** Longest a computed vector waits before its attachment is written, ms. Default 500. */
  delayMs?: number;
}

export function vectorsAttachment(options: VectorsAttachmentOptions): VectorArchive {
  const delayMs = options.delayMs ?? 500;
  /** Lines (without the header) of the attachment being filled, and its index. */
  let shard = 0;
  let lines: string[] = [];
  let header: Header | undefined;
  /**
   * Index → full text of attachments waiting to be written; undefined for the one being filled,
   * whose text is built when it is written (building it on every vector made save() quadratic in
   * a shard's length).
   */
  const dirty = new Map<number, string | undefined>();
  let writing: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let reportedWrite = false;

  function perShard(dimensions: number): number {
    return Math.max(1, Math.floor(SHARD_BYTES / lineBytes(dimensions)));
  }

  function text(h: Header, body: readonly string[]): string {
    return `${JSON.stringify(h)}\n${body.join("\n")}${body.length > 0 ? "\n" : ""}`;
  }

  function write(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const batch = [...dirty].map(([index, body]) => [index, body ?? text(header!, lines)] as const);
    dirty.clear();
    if (batch.length === 0) return writing;
    writing = writing.then(async () => {
      for (const [index, body] of batch) {
        try {
          await options.attachment(index).write(body);
        } catch (error) {
          if (!reportedWrite) {
            reportedWrite = true;
            await options.degraded(`${options.attachment(index).where} cannot be written (${failureText(error)}); the next resume embeds those messages again`);
          }
        }
      }
    });
    return writing;
  }

  return {
    async load(embedder) {
      const out: [string, Float32Array][] = [];
      for (let index = 0; ; index++) {
        const attachment = options.attachment(index);
        let body: string | undefined;
        try {
          body = await attachment.read();
        } catch (error) {
          await options.degraded(`${attachment.where} cannot be read (${failureText(error)}); its messages are embedded again`);
          return out;
        }
        if (body === undefined) return out;
        const parsed = parseShard(body);
        if (parsed === undefined) {
          await options.degraded(`${attachment.where} is not a vectors attachment; its messages are embedded again`);
          return out;
        }
        if (parsed.header.embedder !== embedder) return out; // another embedder's vectors: rewritten from here
        // Reading went well up to here: new vectors go on after these.
        shard = index;
        header = parsed.header;
        lines = parsed.lines;
        for (const entry of parsed.entries) out.push(entry);
        if (lines.length < perShard(header.dimensions)) return out;
        // This attachment is full: the next one is filled next (if it exists it is read in the next round).
        shard = index + 1;
        lines = [];
      }
    },
    save(embedder, entries) {
      for (const [key, vector] of entries) {
        if (header === undefined || header.embedder !== embedder) {
          // The first vector, or another embedder's than the stored ones: start over from the first attachment.
          if (header !== undefined && dirty.has(shard) && dirty.get(shard) === undefined) dirty.set(shard, text(header, lines));
          header = { format: FORMAT, version: 1, embedder, dimensions: vector.length };
          shard = 0;
          lines = [];
        }
        if (vector.length !== header.dimensions) continue; // not this embedder's length (MessageVectors refuses those)
        if (lines.length >= perShard(header.dimensions)) {
          if (dirty.has(shard)) dirty.set(shard, text(header, lines));
          shard++;
          lines = [];
        }
        lines.push(JSON.stringify({ k: key, v: Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64") }));
        dirty.set(shard, undefined);
      }
      if (dirty.size > 0 && timer === undefined) {
        timer = setTimeout(() => void write(), delayMs);
        timer.unref();
      }
    },
    flush: () => write(),
  };
}

/**
 * Most characters one vector's line takes: `{"k":"<16-character key>","v":"<base64>"}` and its
 * newline. Base64 writes 4 characters per 3 bytes and a float32 is 4 bytes, so 512 numbers take
 * 2,732 characters (this once counted ceil(512·4/3) = 683, a quarter of it: a shard of 7,100
 * vectors came to 19.7 MB, over the stores' 16 MiB, its write failed and the next resume embedded
 * them all again).
 */
export function lineBytes(dimensions: number): number {
  return 4 * Math.ceil((dimensions * 4) / 3) + 48;
}

function parseShard(body: string): { header: Header; lines: string[]; entries: [string, Float32Array][] } | undefined {
  const all = body.split("\n").filter((line) => line !== "");
  let header: Header;
  try {
    header = JSON.parse(all[0] ?? "") as Header;
  } catch {
    return undefined;
  }
  if (header?.format !== FORMAT || header.version !== 1 || typeof header.embedder !== "string" || !Number.isInteger(header.dimensions) || header.dimensions <= 0) return undefined;
  const lines: string[] = [];
  const entries: [string, Float32Array][] = [];
  for (const line of all.slice(1)) {
    let entry: { k?: unknown; v?: unknown };
    try {
      entry = JSON.parse(line) as { k?: unknown; v?: unknown };
    } catch {
      return undefined;
    }
    if (typeof entry.k !== "string" || typeof entry.v !== "string") return undefined;
    const bytes = Buffer.from(entry.v, "base64");
    if (bytes.byteLength !== header.dimensions * 4) return undefined;
    const vector = new Float32Array(header.dimensions);
    new Uint8Array(vector.buffer).set(bytes);
    lines.push(line);
    entries.push([entry.k, vector]);
  }
  return { header, lines, entries };
}
