import { createError } from "../errors.js";
import { storeErrors } from "./store-errors.js";

/**
 * The BlobStore contract (contracts/BLOBS.md): large binary artifacts (files a tool produced,
 * images, exports) under a path-like key, with their content type. Implementations: memory,
 * file (the embedded default) in @amplifier-ts/module-store-blobs, postgres in
 * @amplifier-ts/agent-stores-postgres. Conformance suite: `describeBlobStoreContract` in
 * @amplifier-ts/testing.
 */
export interface BlobStore {
  /** "memory", "file", "postgres" or a third party's name. */
  readonly kind: string;
  /** Opens what the store needs (folder, pool, tables). Optional: the first operation does it; calling it surfaces a misconfiguration early. */
  connect(): Promise<void>;
  /** Releases what the store holds. Final: every operation afterwards is STORE_CLOSED. Idempotent. */
  disconnect(): Promise<void>;
  /** Stores `data` under `key`, replacing what was there, whole or not at all. Larger than maxBlobBytes → STORE/BLOB_TOO_LARGE, nothing written. */
  upload(key: string, data: Uint8Array, contentType: string): Promise<void>;
  /** The bytes and content type under `key`; STORE/BLOB_NOT_FOUND when there are none. */
  download(key: string): Promise<BlobDownload>;
  /** Removes the blob; true when there was one. */
  delete(key: string): Promise<boolean>;
  /**
   * A URL for the blob (STORE/BLOB_NOT_FOUND when absent): `memory://<key>` for the in-memory
   * store (callers recognise the scheme and call download()), `file://` the blob's record file
   * for the file store, `postgres-blob://host:port/database/<schema>.<prefix>_blobs/<key>` for PostgreSQL (no
   * credentials; callers recognise it the same way). None of them is a signed, expiring HTTP URL.
   */
  presignUrl(key: string): Promise<string>;
}

export interface BlobDownload {
  data: Uint8Array;
  contentType: string;
}

/** Default of every store's `maxBlobBytes`: 64 MiB. */
export const DEFAULT_MAX_BLOB_BYTES = 64 * 1024 * 1024;
/** A key is at most this many characters. */
export const MAX_BLOB_KEY_LENGTH = 1024;
/** One segment (between slashes) is at most this many characters. */
export const MAX_BLOB_KEY_SEGMENT_LENGTH = 255;
/** A content type: `type/subtype` with optional parameters, printable ASCII, at most 255 characters. */
export const CONTENT_TYPE_PATTERN = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(?:\s*;[\x20-\x7e]*)?$/;

const SEGMENT = /^[A-Za-z0-9_@+=,~-][A-Za-z0-9._@+=,~-]*$/;

/**
 * Why `key` is not a valid blob key, or undefined when it is. The rules (BLOBS.md §Keys): 1-1024
 * characters; segments separated by single `/`, none empty (no leading, trailing or doubled
 * slash, so no absolute path); each segment 1-255 characters of `[A-Za-z0-9._@+=,~-]` not
 * starting with a dot (so no `.` or `..`, no hidden or temp file names); hence no NUL, no control
 * character, no backslash, no drive letter (`:` is not allowed), no space.
 */
export function blobKeyProblem(key: unknown): string | undefined {
  if (typeof key !== "string") return "a string";
  if (key.length === 0) return "a non-empty key";
  if (key.length > MAX_BLOB_KEY_LENGTH) return `at most ${MAX_BLOB_KEY_LENGTH} characters`;
  if (key.startsWith("/")) return "a relative key (no leading slash: keys are not absolute paths)";
  for (const segment of key.split("/")) {
    if (segment.length === 0) return "segments separated by single slashes (no empty segment)";
    if (segment === "." || segment === "..") return "no '.' or '..' segment (keys cannot leave the store)";
    if (segment.length > MAX_BLOB_KEY_SEGMENT_LENGTH) return `segments of at most ${MAX_BLOB_KEY_SEGMENT_LENGTH} characters`;
    if (segment.startsWith(".")) return "segments that do not start with a dot";
    if (!SEGMENT.test(segment)) return "segments of [A-Za-z0-9._@+=,~-] only (no NUL, control character, backslash, colon or space)";
  }
  return undefined;
}

/** Throws INVALID_ARGUMENT naming the rule `key` breaks. */
export function assertBlobKey(key: unknown, store: string): asserts key is string {
  const problem = blobKeyProblem(key);
  if (problem === undefined) return;
  throw createError("INVALID_ARGUMENT", `invalid blob key: expected ${problem}`, {
    module: store,
    path: "key",
    expected: `a blob key: ${problem}`,
    given: key,
  });
}

/** Throws INVALID_ARGUMENT unless `data` is a Uint8Array (a Buffer is one) and `contentType` a MIME type. */
export function assertBlobUpload(data: unknown, contentType: unknown, store: string): asserts data is Uint8Array {
  if (!(data instanceof Uint8Array)) {
    throw createError("INVALID_ARGUMENT", "a blob's data must be a Uint8Array", { module: store, path: "data", expected: "a Uint8Array (or Buffer)", given: data });
  }
  if (typeof contentType !== "string" || contentType.length > 255 || !CONTENT_TYPE_PATTERN.test(contentType)) {
    throw createError("INVALID_ARGUMENT", "a blob's content type must be a MIME type", {
      module: store,
      path: "contentType",
      expected: "type/subtype with optional parameters, printable ASCII, at most 255 characters (e.g. image/png, text/plain; charset=utf-8)",
      given: contentType,
    });
  }
}

/** Throws STORE/BLOB_TOO_LARGE when `size` exceeds `maxBlobBytes` — before anything is written. */
export function assertBlobSize(key: string, size: number, maxBlobBytes: number, store: string): void {
  if (size <= maxBlobBytes) return;
  throw storeErrors.create("BLOB_TOO_LARGE", `blob ${JSON.stringify(key)} is ${size} bytes; this store takes at most ${maxBlobBytes}`, {
    module: store,
    path: "data",
    expected: `at most ${maxBlobBytes} bytes (the store's maxBlobBytes)`,
    given: size,
  });
}

export function blobNotFound(key: string, store: string) {
  return storeErrors.create("BLOB_NOT_FOUND", `no blob under ${JSON.stringify(key)}`, { module: store, path: "key", given: key });
}
