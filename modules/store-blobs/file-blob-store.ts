import { createHash } from "node:crypto";
import { mkdir, open, readFile, readdir, rename, stat, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { BlobDownload, BlobStore } from "@amplifier-ts/contracts";
import { assertBlobKey, assertBlobSize, assertBlobUpload, blobNotFound, createError, DEFAULT_MAX_BLOB_BYTES } from "@amplifier-ts/contracts";
import { DEFAULT_TEMP_MAX_AGE_MS, isTempName, judgeTemp, markInFlight, tempNameFor } from "./temp-file-owner.js";

const MODULE = "store-blobs/file";

/** Where the file store keeps blobs unless told otherwise (relative to the working directory). */
export const DEFAULT_BLOB_PATH = ".amplifier/blobs";

export interface FileBlobStoreOptions {
  /** The folder. Default DEFAULT_BLOB_PATH. */
  path?: string;
  /** Default DEFAULT_MAX_BLOB_BYTES (64 MiB). */
  maxBlobBytes?: number;
  /**
   * A temp file (an upload being written) not modified for this long is removed by `connect()`
   * whoever wrote it; younger ones only when their writer provably ended (temp-file-owner.ts).
   * Default DEFAULT_TEMP_MAX_AGE_MS (24 hours).
   */
  tempMaxAgeMs?: number;
}

/**
 * Blobs in a folder — the embedded default. One file per blob, named by the SHA-256 of its key
 * (`<root>/<first 2 hex>/<64 hex>.blob`), so keys never become paths: `a` and `a/b` can both
 * exist, case-insensitive file systems cannot merge two keys, and no key reaches outside the
 * folder even before validation. A file is one record:
 *
 *     {"key":"reports/q1.pdf","contentType":"application/pdf","size":1234}\n<the bytes>
 *
 * Writes are atomic (temp file in the same folder, fsync, rename, fsync of the folder): after a
 * crash a blob is its old record or its new one, never a mix, and a failed or refused upload
 * leaves nothing behind. Temp files start with a dot and name their writer (host and pid namespace,
 * boot, pid); `connect()` removes only those provably abandoned — the writer's process is gone, or
 * the file was not modified for `tempMaxAgeMs` — never another process's upload in flight.
 * The folder is created by the first upload, not by `connect()`: mounting the store creates nothing.
 */
export class FileBlobStore implements BlobStore {
  readonly kind = "file";
  readonly root: string;
  readonly #maxBlobBytes: number;
  readonly #tempMaxAgeMs: number;
  #ready: Promise<void> | undefined;
  #closed = false;

  constructor(options: FileBlobStoreOptions = {}) {
    if (options.path !== undefined && (typeof options.path !== "string" || options.path.length === 0 || options.path.includes("\0"))) {
      throw createError("INVALID_ARGUMENT", "a file blob store needs a folder path", { module: MODULE, path: "path", expected: "a non-empty path without NUL", given: options.path });
    }
    this.root = resolve(options.path ?? DEFAULT_BLOB_PATH);
    this.#maxBlobBytes = options.maxBlobBytes ?? DEFAULT_MAX_BLOB_BYTES;
    const age = options.tempMaxAgeMs;
    if (age !== undefined && (typeof age !== "number" || !Number.isSafeInteger(age) || age < 1)) {
      throw createError("INVALID_ARGUMENT", "tempMaxAgeMs must be a positive whole number of milliseconds", { module: MODULE, path: "tempMaxAgeMs", expected: "a safe integer ≥ 1 (milliseconds)", given: age });
    }
    this.#tempMaxAgeMs = age ?? DEFAULT_TEMP_MAX_AGE_MS;
  }

  async connect(): Promise<void> {
    this.#open();
    this.#ready ??= this.#prepare();
    await this.#ready;
  }

  async disconnect(): Promise<void> {
    this.#closed = true;
  }

  async upload(key: string, data: Uint8Array, contentType: string): Promise<void> {
    assertBlobKey(key, MODULE);
    assertBlobUpload(data, contentType, MODULE);
    assertBlobSize(key, data.byteLength, this.#maxBlobBytes, MODULE);
    await this.connect();
    const { folder, file } = this.#locate(key);
    const header = Buffer.from(`${JSON.stringify({ key, contentType, size: data.byteLength })}\n`, "utf8");
    try {
      await mkdir(folder, { recursive: true });
      await writeAtomic(file, [header, data]);
    } catch (cause) {
      throw createError("STORAGE_WRITE_FAILED", `could not write blob ${JSON.stringify(key)} under ${this.root}`, { module: MODULE, file, cause });
    }
  }

  async download(key: string): Promise<BlobDownload> {
    assertBlobKey(key, MODULE);
    await this.connect();
    const { file } = this.#locate(key);
    const record = await readRecord(file);
    if (record === undefined) throw blobNotFound(key, MODULE);
    return { data: record.data, contentType: record.contentType };
  }

  async delete(key: string): Promise<boolean> {
    assertBlobKey(key, MODULE);
    await this.connect();
    try {
      await unlink(this.#locate(key).file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw createError("STORAGE_WRITE_FAILED", `could not delete blob ${JSON.stringify(key)}`, { module: MODULE, cause: error });
    }
  }

  /** `file://` URL of the blob's record file (its header line, then the bytes). */
  async presignUrl(key: string): Promise<string> {
    assertBlobKey(key, MODULE);
    await this.connect();
    const { file } = this.#locate(key);
    if ((await readRecord(file, true)) === undefined) throw blobNotFound(key, MODULE);
    return pathToFileURL(file).href;
  }

  #locate(key: string): { folder: string; file: string } {
    const hash = createHash("sha256").update(key, "utf8").digest("hex");
    const folder = join(this.root, hash.slice(0, 2));
    return { folder, file: join(folder, `${hash}.blob`) };
  }

  async #prepare(): Promise<void> {
    try {
      // The folder is made by the first upload (lazily): a connect — `amplifier-ts validate` mounting
      // the store, a session that never writes a blob — leaves no folder behind.
      let shards;
      try {
        shards = await readdir(this.root, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
        throw error;
      }
      for (const shard of shards) {
        if (!shard.isDirectory() || !/^[0-9a-f]{2}$/.test(shard.name)) continue;
        const folder = join(this.root, shard.name);
        for (const name of await readdir(folder)) {
          if (isTempName(name)) await removeIfAbandoned(join(folder, name), name, this.#tempMaxAgeMs);
        }
      }
    } catch (cause) {
      this.#ready = undefined;
      throw createError("STORAGE_UNAVAILABLE", `the blob folder ${this.root} cannot be used`, { module: MODULE, file: this.root, cause });
    }
  }

  #open(): void {
    if (this.#closed) throw createError("STORE_CLOSED", "the blob store has been disconnected", { module: MODULE });
  }
}

/** Temp file, fsync, rename over the target, fsync the folder; the temp file is removed on any failure. */
async function writeAtomic(target: string, parts: readonly Uint8Array[]): Promise<void> {
  const folder = join(target, "..");
  const temp = join(folder, tempNameFor(target.slice(folder.length + 1)));
  const done = markInFlight(temp);
  let handle;
  try {
    handle = await open(temp, "wx", 0o600);
  } catch (error) {
    done();
    throw error;
  }
  try {
    for (const part of parts) {
      let written = 0;
      while (written < part.byteLength) written += (await handle.write(part, written, part.byteLength - written)).bytesWritten;
    }
    await handle.datasync();
    await handle.close();
    await rename(temp, target);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw error;
  } finally {
    done();
  }
  const directory = await open(folder, "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/** Removes temp file `path` when judgeTemp finds it abandoned; one that vanished meanwhile was finished or removed by its writer. */
async function removeIfAbandoned(path: string, name: string, maxAgeMs: number): Promise<void> {
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(path)).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (judgeTemp(path, name, mtimeMs, maxAgeMs) === "abandoned") await unlink(path).catch(() => undefined);
}

async function readRecord(file: string, headerOnly = false): Promise<{ contentType: string; data: Uint8Array } | undefined> {
  let bytes: Buffer;
  try {
    bytes = headerOnly ? await readHead(file) : await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw createError("STORAGE_UNAVAILABLE", `could not read blob file ${file}`, { module: MODULE, file, cause: error });
  }
  const newline = bytes.indexOf(0x0a);
  const header = newline < 0 ? undefined : parseHeader(bytes.subarray(0, newline).toString("utf8"));
  if (header === undefined) throw createError("STORAGE_UNAVAILABLE", `blob file ${file} does not start with a record header line`, { module: MODULE, file, expected: '{"key","contentType","size"} and a newline' });
  if (headerOnly) return { contentType: header.contentType, data: new Uint8Array(0) };
  const data = new Uint8Array(bytes.buffer, bytes.byteOffset + newline + 1, bytes.byteLength - newline - 1);
  if (data.byteLength !== header.size) throw createError("STORAGE_UNAVAILABLE", `blob file ${file} holds ${data.byteLength} bytes, its header says ${header.size}`, { module: MODULE, file });
  return { contentType: header.contentType, data };
}

async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function parseHeader(line: string): { contentType: string; size: number } | undefined {
  try {
    const header = JSON.parse(line) as { contentType?: unknown; size?: unknown };
    return typeof header.contentType === "string" && Number.isInteger(header.size) ? (header as { contentType: string; size: number }) : undefined;
  } catch {
    return undefined;
  }
}
