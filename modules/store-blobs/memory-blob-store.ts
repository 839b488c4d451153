import type { BlobDownload, BlobStore } from "@amplifier-ts/contracts";
import { assertBlobKey, assertBlobSize, assertBlobUpload, blobNotFound, createError, DEFAULT_MAX_BLOB_BYTES } from "@amplifier-ts/contracts";

const MODULE = "store-blobs/memory";

export interface MemoryBlobStoreOptions {
  /** Default DEFAULT_MAX_BLOB_BYTES (64 MiB). */
  maxBlobBytes?: number;
}

/**
 * Blobs in this process: a map from key to (bytes, content type). Bytes are copied in and
 * out, so a caller that edits its array afterwards changes nothing stored. presignUrl is
 * `memory://<key>`, which callers recognise and answer with download(). Nothing survives the process.
 */
export class MemoryBlobStore implements BlobStore {
  readonly kind = "memory";
  readonly #blobs = new Map<string, { data: Uint8Array; contentType: string }>();
  readonly #maxBlobBytes: number;
  #closed = false;

  constructor(options: MemoryBlobStoreOptions = {}) {
    this.#maxBlobBytes = options.maxBlobBytes ?? DEFAULT_MAX_BLOB_BYTES;
  }

  async connect(): Promise<void> {
    this.#open();
  }

  async disconnect(): Promise<void> {
    this.#closed = true;
    this.#blobs.clear();
  }

  async upload(key: string, data: Uint8Array, contentType: string): Promise<void> {
    this.#open();
    assertBlobKey(key, MODULE);
    assertBlobUpload(data, contentType, MODULE);
    assertBlobSize(key, data.byteLength, this.#maxBlobBytes, MODULE);
    this.#blobs.set(key, { data: new Uint8Array(data), contentType });
  }

  async download(key: string): Promise<BlobDownload> {
    this.#open();
    assertBlobKey(key, MODULE);
    const blob = this.#blobs.get(key);
    if (blob === undefined) throw blobNotFound(key, MODULE);
    return { data: blob.data.slice(), contentType: blob.contentType };
  }

  async delete(key: string): Promise<boolean> {
    this.#open();
    assertBlobKey(key, MODULE);
    return this.#blobs.delete(key);
  }

  async presignUrl(key: string): Promise<string> {
    this.#open();
    assertBlobKey(key, MODULE);
    if (!this.#blobs.has(key)) throw blobNotFound(key, MODULE);
    return `memory://${key}`;
  }

  #open(): void {
    if (this.#closed) throw createError("STORE_CLOSED", "the blob store has been disconnected", { module: MODULE });
  }
}
