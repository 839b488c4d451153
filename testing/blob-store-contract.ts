/**
 * The conformance suite of the BlobStore contract (contracts/BLOBS.md). Every blob store runs it —
 * memory, file, PostgreSQL, third parties':
 *
 * ```ts
 * describeBlobStoreContract("memory", async ({ maxBlobBytes }) => ({ store: new MemoryBlobStore({ maxBlobBytes }) }), { presignUrl: (key) => `memory://${key}` });
 * ```
 *
 * The factory gets the `maxBlobBytes` the case needs (undefined: the store's default) and returns a
 * store over EMPTY storage; `reopen`, when the store persists, opens a second store over the same
 * storage (the suite checks blobs survive and are shared); `cleanup` removes the storage after the
 * suite disconnected the stores.
 */
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { BlobStore } from "@amplifier-ts/contracts";
import { expectClosed, expectInvalid, expectStoreError } from "./store-contract-helpers.js";

export interface BlobStoreUnderTest {
  store: BlobStore;
  reopen?: () => BlobStore;
  cleanup?: () => Promise<void>;
}

export type BlobStoreFactory = (options: { maxBlobBytes?: number }) => Promise<BlobStoreUnderTest>;

export interface BlobStoreContractOptions {
  /** The URL presignUrl must give for a key, exactly (a string) or by pattern. */
  presignUrl?: (key: string) => string | RegExp;
  /** Bytes of the large-blob case (default 6 MiB: several chunks of a chunked store). */
  largeBlobBytes?: number;
}

/** Keys every store refuses with INVALID_ARGUMENT, and the rule each breaks. */
export const INVALID_BLOB_KEYS: ReadonlyArray<[string, unknown]> = [
  ["empty", ""],
  ["parent traversal", "../etc/passwd"],
  ["traversal inside", "a/../../b"],
  ["dot segment", "a/./b"],
  ["absolute path", "/etc/passwd"],
  ["doubled slash", "a//b"],
  ["trailing slash", "a/"],
  ["NUL byte", "a\u0000b"],
  ["control character", "a\nb"],
  ["backslash", "a\\..\\b"],
  ["drive letter", "C:/Windows"],
  ["hidden segment", ".env"],
  ["space", "my file"],
  ["too long", "k".repeat(1025)],
  ["not a string", 42],
];

export function describeBlobStoreContract(name: string, factory: BlobStoreFactory, options: BlobStoreContractOptions = {}): void {
  describe(`BlobStore contract: ${name}`, () => {
    let open: Array<{ made: BlobStoreUnderTest; extra: BlobStore[] }> = [];
    const make = async (limits: { maxBlobBytes?: number } = {}) => {
      const made = await factory(limits);
      const entry = { made, extra: [] as BlobStore[] };
      open.push(entry);
      return { store: made.store, reopen: made.reopen === undefined ? undefined : () => { const s = made.reopen!(); entry.extra.push(s); return s; } };
    };
    afterEach(async () => {
      for (const { made, extra } of open) {
        for (const store of [made.store, ...extra]) await store.disconnect();
        await made.cleanup?.();
      }
      open = [];
    });
    const bytes = (text: string) => new TextEncoder().encode(text);

    it("download gives back the bytes and content type uploaded; a second upload replaces both", async () => {
      const { store } = await make();
      await store.connect();
      await store.upload("reports/2026/q1.txt", bytes("first"), "text/plain; charset=utf-8");
      const first = await store.download("reports/2026/q1.txt");
      expect(first.data).toBeInstanceOf(Uint8Array);
      expect(new TextDecoder().decode(first.data)).toBe("first");
      expect(first.contentType).toBe("text/plain; charset=utf-8");
      await store.upload("reports/2026/q1.txt", Uint8Array.from([0, 255, 1, 254]), "application/octet-stream");
      const second = await store.download("reports/2026/q1.txt");
      expect([...second.data]).toEqual([0, 255, 1, 254]);
      expect(second.contentType).toBe("application/octet-stream");
    });

    it("an empty blob is a blob", async () => {
      const { store } = await make();
      await store.upload("empty.bin", new Uint8Array(0), "application/octet-stream");
      expect((await store.download("empty.bin")).data.byteLength).toBe(0);
      expect(await store.delete("empty.bin")).toBe(true);
    });

    it("a missing key is STORE/BLOB_NOT_FOUND for download and presignUrl; delete says whether there was one", async () => {
      const { store } = await make();
      const error = await expectStoreError(store.download("nope/x.png"), "BLOB_NOT_FOUND");
      expect(error.message).toContain("nope/x.png");
      await expectStoreError(store.presignUrl("nope/x.png"), "BLOB_NOT_FOUND");
      expect(await store.delete("nope/x.png")).toBe(false);
      await store.upload("x.png", bytes("png"), "image/png");
      expect(await store.delete("x.png")).toBe(true);
      expect(await store.delete("x.png")).toBe(false);
      await expectStoreError(store.download("x.png"), "BLOB_NOT_FOUND");
    });

    it("presignUrl names the blob in the store's documented form", async () => {
      const { store } = await make();
      await store.upload("images/cat.png", bytes("meow"), "image/png");
      const url = await store.presignUrl("images/cat.png");
      expect(() => new URL(url)).not.toThrow();
      const expected = options.presignUrl?.("images/cat.png");
      if (typeof expected === "string") expect(url).toBe(expected);
      else if (expected !== undefined) expect(url).toMatch(expected);
      await store.upload("images/dog.png", bytes("woof"), "image/png");
      expect(await store.presignUrl("images/dog.png")).not.toBe(url);
    });

    it.each(INVALID_BLOB_KEYS)("a key with %s is INVALID_ARGUMENT for every method, and nothing is written", async (_rule, key) => {
      const { store } = await make();
      await expectInvalid(store.upload(key as string, bytes("x"), "text/plain"), "key");
      await expectInvalid(store.download(key as string), "key");
      await expectInvalid(store.delete(key as string), "key");
      await expectInvalid(store.presignUrl(key as string), "key");
      // The store still works, and the refused upload left nothing under a valid neighbour either.
      await expectStoreError(store.download("etc/passwd"), "BLOB_NOT_FOUND");
      await store.upload("ok", bytes("ok"), "text/plain");
      expect(new TextDecoder().decode((await store.download("ok")).data)).toBe("ok");
    });

    it("keys are exact: a and a/b coexist, case and punctuation matter", async () => {
      const { store } = await make();
      const keys = ["a", "a/b", "A", "a/b/c", "a-b", "a_b", "a.b", "x@y+z=1,2~3"];
      for (const [i, key] of keys.entries()) await store.upload(key, bytes(`v${i}`), "text/plain");
      for (const [i, key] of keys.entries()) expect(new TextDecoder().decode((await store.download(key)).data), key).toBe(`v${i}`);
      expect(await store.delete("a")).toBe(true);
      expect(new TextDecoder().decode((await store.download("a/b")).data)).toBe("v1");
    });

    it("data must be a Uint8Array and the content type a MIME type: INVALID_ARGUMENT", async () => {
      const { store } = await make();
      await expectInvalid(store.upload("k", "text" as never, "text/plain"), "data");
      await expectInvalid(store.upload("k", [1, 2] as never, "text/plain"), "data");
      await expectInvalid(store.upload("k", bytes("x"), ""), "contentType");
      await expectInvalid(store.upload("k", bytes("x"), "text"), "contentType");
      await expectInvalid(store.upload("k", bytes("x"), "text/plain\r\nX-Evil: 1"), "contentType");
      await expectStoreError(store.download("k"), "BLOB_NOT_FOUND");
    });

    it("a blob over maxBlobBytes is STORE/BLOB_TOO_LARGE and writes nothing; the old blob under the key stays whole", async () => {
      const { store } = await make({ maxBlobBytes: 1024 });
      await store.upload("limit", new Uint8Array(1024).fill(7), "application/octet-stream");
      const error = await expectStoreError(store.upload("limit", new Uint8Array(1025).fill(9), "text/plain"), "BLOB_TOO_LARGE");
      expect(error.details.given).toBe(1025);
      const kept = await store.download("limit");
      expect(kept.data.byteLength).toBe(1024);
      expect(kept.data.every((b) => b === 7)).toBe(true);
      expect(kept.contentType).toBe("application/octet-stream");
      await expectStoreError(store.upload("fresh", new Uint8Array(5000), "text/plain"), "BLOB_TOO_LARGE");
      await expectStoreError(store.download("fresh"), "BLOB_NOT_FOUND");
    });

    it("a multi-megabyte blob round-trips byte for byte", async () => {
      const size = options.largeBlobBytes ?? 6 * 1024 * 1024 + 12345;
      const { store } = await make();
      const data = new Uint8Array(size);
      // Random bytes in 64 KiB blocks: no two chunks alike, so a misordered or repeated chunk shows.
      for (let offset = 0; offset < size; offset += 65536) data.set(randomBytes(Math.min(65536, size - offset)), offset);
      await store.upload("large/dump.bin", data, "application/octet-stream");
      const back = await store.download("large/dump.bin");
      expect(back.data.byteLength).toBe(size);
      expect(Buffer.from(back.data).equals(Buffer.from(data))).toBe(true);
    }, 60_000);

    it("bytes are copied: editing the uploaded or downloaded array changes nothing stored", async () => {
      const { store } = await make();
      const data = Uint8Array.from([1, 2, 3]);
      await store.upload("copy", data, "application/octet-stream");
      data[0] = 99;
      const first = await store.download("copy");
      first.data[1] = 99;
      expect([...(await store.download("copy")).data]).toEqual([1, 2, 3]);
    });

    it("a Buffer view into a larger buffer uploads only its own bytes", async () => {
      const { store } = await make();
      const backing = Buffer.from("0123456789");
      await store.upload("view", backing.subarray(3, 6), "text/plain");
      expect(new TextDecoder().decode((await store.download("view")).data)).toBe("345");
    });

    it("concurrent uploads of one key leave one of them, whole", async () => {
      const { store } = await make();
      const versions = Array.from({ length: 8 }, (_, i) => new Uint8Array(200_000 + i).fill(i + 1));
      await Promise.all(versions.map((v, i) => store.upload("race", v, `application/x-v${i}`)));
      const { data, contentType } = await store.download("race");
      const i = Number(contentType.slice("application/x-v".length));
      expect(data.byteLength).toBe(200_000 + i);
      expect(data.every((b) => b === i + 1)).toBe(true);
    });

    it("after disconnect every operation is STORE_CLOSED", async () => {
      const { store } = await make();
      await store.upload("k", bytes("v"), "text/plain");
      await store.disconnect();
      await store.disconnect();
      await expectClosed(store.download("k"));
      await expectClosed(store.upload("k", bytes("v"), "text/plain"));
      await expectClosed(store.delete("k"));
      await expectClosed(store.presignUrl("k"));
      await expectClosed(store.connect());
    });

    it("a persistent store's blobs are seen by a second store over the same storage", async (context) => {
      const { store, reopen } = await make();
      if (reopen === undefined) return context.skip();
      await store.upload("shared/a.json", bytes('{"a":1}'), "application/json");
      const other = reopen();
      expect(new TextDecoder().decode((await other.download("shared/a.json")).data)).toBe('{"a":1}');
      expect(await other.delete("shared/a.json")).toBe(true);
      await expectStoreError(store.download("shared/a.json"), "BLOB_NOT_FOUND");
    });
  });
}
