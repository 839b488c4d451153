import type { BlobDownload, BlobStore } from "@amplifier-ts/contracts";
import type { PostgresBlobStoreOptions } from "./agent-store-options.js";
import { assertBlobKey, assertBlobSize, assertBlobUpload, blobNotFound, createError, DEFAULT_MAX_BLOB_BYTES } from "@amplifier-ts/contracts";
import { PgStore } from "./pg-store.js";

const MODULE = "agent-stores-postgres/blobs";
export const DEFAULT_BLOB_CHUNK_BYTES = 1024 * 1024;
/** Chunks fetched per round trip of a download. */
const CHUNKS_PER_READ = 8;

/**
 * Blobs in PostgreSQL, for stores shared by processes and machines. A blob is one row of
 * `<prefix>_blobs` (key, content type, size) and its bytes in `<prefix>_blob_chunks` as bytea
 * rows of `chunkBytes` (default 1 MiB):
 *
 * - upload: one transaction — upsert the blob row (its row lock orders concurrent uploads of a
 *   key), delete the old chunks, insert the new ones one statement per chunk, so no statement
 *   carries more than a chunk and a multi-megabyte blob never becomes one giant parameter or
 *   row; a failure rolls everything back (the old blob stays whole).
 * - download: one REPEATABLE READ transaction (a consistent snapshot even while the key is being
 *   replaced) reading CHUNKS_PER_READ chunks per round trip into one preallocated array.
 * - size is checked against maxBlobBytes before anything is sent.
 */
export class PostgresBlobStore extends PgStore implements BlobStore {
  readonly #maxBlobBytes: number;
  readonly #chunkBytes: number;

  constructor(options: PostgresBlobStoreOptions = {}) {
    super(MODULE, options, (schema, prefix) => [
      `CREATE TABLE IF NOT EXISTS "${schema}"."${prefix}_blobs" (key text PRIMARY KEY, content_type text NOT NULL, size bigint NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
      `CREATE TABLE IF NOT EXISTS "${schema}"."${prefix}_blob_chunks" (key text NOT NULL REFERENCES "${schema}"."${prefix}_blobs"(key) ON DELETE CASCADE, seq integer NOT NULL, data bytea NOT NULL, PRIMARY KEY (key, seq))`,
    ]);
    this.#maxBlobBytes = options.maxBlobBytes ?? DEFAULT_MAX_BLOB_BYTES;
    this.#chunkBytes = options.chunkBytes ?? DEFAULT_BLOB_CHUNK_BYTES;
    if (!Number.isInteger(this.#chunkBytes) || this.#chunkBytes < 1024) {
      throw createError("INVALID_ARGUMENT", "chunkBytes must be an integer of at least 1024", { module: MODULE, path: "chunkBytes", expected: "an integer ≥ 1024", given: options.chunkBytes });
    }
  }

  async upload(key: string, data: Uint8Array, contentType: string): Promise<void> {
    assertBlobKey(key, MODULE);
    assertBlobUpload(data, contentType, MODULE);
    assertBlobSize(key, data.byteLength, this.#maxBlobBytes, MODULE);
    const blobs = this.db.table("blobs");
    const chunks = this.db.table("blob_chunks");
    await this.db.transaction(async (client) => {
      await client.query(
        `INSERT INTO ${blobs} (key, content_type, size) VALUES ($1, $2, $3)
         ON CONFLICT (key) DO UPDATE SET content_type = EXCLUDED.content_type, size = EXCLUDED.size, updated_at = now()`,
        [key, contentType, data.byteLength],
      );
      await client.query(`DELETE FROM ${chunks} WHERE key = $1`, [key]);
      for (let seq = 0, offset = 0; offset < data.byteLength; seq++, offset += this.#chunkBytes) {
        const end = Math.min(offset + this.#chunkBytes, data.byteLength);
        // A view, not a copy: the driver sends it as one bytea parameter.
        await client.query(`INSERT INTO ${chunks} (key, seq, data) VALUES ($1, $2, $3)`, [key, seq, Buffer.from(data.buffer, data.byteOffset + offset, end - offset)]);
      }
    });
  }

  async download(key: string): Promise<BlobDownload> {
    assertBlobKey(key, MODULE);
    const blobs = this.db.table("blobs");
    const chunks = this.db.table("blob_chunks");
    return this.db.transaction(async (client) => {
      const head = await client.query<{ content_type: string; size: string }>(`SELECT content_type, size FROM ${blobs} WHERE key = $1`, [key]);
      const row = head.rows[0];
      if (row === undefined) throw blobNotFound(key, MODULE);
      const size = Number(row.size);
      const data = new Uint8Array(size);
      let filled = 0;
      for (let from = 0; filled < size; from += CHUNKS_PER_READ) {
        const page = await client.query<{ data: Buffer }>(`SELECT data FROM ${chunks} WHERE key = $1 AND seq >= $2 AND seq < $3 ORDER BY seq`, [key, from, from + CHUNKS_PER_READ]);
        if (page.rows.length === 0) break;
        for (const chunk of page.rows) {
          if (filled + chunk.data.byteLength > size) break;
          data.set(chunk.data, filled);
          filled += chunk.data.byteLength;
        }
      }
      if (filled !== size) {
        throw createError("STORAGE_UNAVAILABLE", `blob ${JSON.stringify(key)} has ${filled} of its ${size} bytes in ${chunks}`, { module: MODULE });
      }
      return { data, contentType: row.content_type };
    }, "REPEATABLE READ");
  }

  async delete(key: string): Promise<boolean> {
    assertBlobKey(key, MODULE);
    const result = await this.db.query(`DELETE FROM ${this.db.table("blobs")} WHERE key = $1`, [key]);
    return (result.rowCount ?? 0) > 0;
  }

  /** `postgres-blob://host:port/database/<schema>.<prefix>_blobs/<key>` — no credentials; callers recognise the scheme and call download(). */
  async presignUrl(key: string): Promise<string> {
    assertBlobKey(key, MODULE);
    const found = await this.db.query(`SELECT 1 FROM ${this.db.table("blobs")} WHERE key = $1`, [key]);
    if (found.rowCount === 0) throw blobNotFound(key, MODULE);
    const url = new URL(this.db.url);
    return `postgres-blob://${url.host}${url.pathname}/${this.db.schema}.${this.db.prefix}_blobs/${key}`;
  }
}
