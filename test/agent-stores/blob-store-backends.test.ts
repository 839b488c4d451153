import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { isAmplifierError, storeErrors } from "../../contracts/index.js";
import { FileBlobStore } from "../../modules/store-blobs/index.js";
import { crashLeftoverName } from "./blob-temp-support.js";
import { PostgresBlobStore } from "../../modules/agent-stores-postgres/index.js";
import { dropSchemas, PG_URL, queryOnce, testSchemaName } from "../stores/postgres-support.js";

const folders: string[] = [];
const schemas: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
  await dropSchemas(...schemas);
});

async function folder(): Promise<string> {
  const path = await mkdtemp(join(tmpdir(), "amp-blob-files-"));
  folders.push(path);
  return path;
}

/** Every file under `root`, relative. */
async function filesUnder(root: string): Promise<string[]> {
  return (await readdir(root, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(root.length + 1)).sort();
}

describe("FileBlobStore: one atomically written record per blob", () => {
  it("a blob is one file <2 hex>/<sha256>.blob holding a header line and the bytes; the presigned file:// URL names it", async () => {
    const root = await folder();
    const store = new FileBlobStore({ path: root });
    await store.upload("not/a/path/but/a/key", Uint8Array.from([1, 2, 3]), "application/octet-stream");
    const files = await filesUnder(root);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{2}\/[0-9a-f]{64}\.blob$/);
    const record = await readFile(join(root, files[0]!));
    const newline = record.indexOf(0x0a);
    expect(JSON.parse(record.subarray(0, newline).toString())).toEqual({ key: "not/a/path/but/a/key", contentType: "application/octet-stream", size: 3 });
    expect([...record.subarray(newline + 1)]).toEqual([1, 2, 3]);
    expect(fileURLToPath(await store.presignUrl("not/a/path/but/a/key"))).toBe(join(root, files[0]!));
    await store.disconnect();
  });

  it("uploads leave no temp files; a refused upload leaves no file at all", async () => {
    const root = await folder();
    const store = new FileBlobStore({ path: root, maxBlobBytes: 100 });
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.upload(`k${i % 4}`, new Uint8Array(50).fill(i), "application/octet-stream")));
    expect(await filesUnder(root)).toHaveLength(4);
    expect((await filesUnder(root)).some((f) => f.includes(".tmp-"))).toBe(false);
    expect(storeErrors.is(await store.upload("big", new Uint8Array(101), "text/plain").catch((e: unknown) => e), "BLOB_TOO_LARGE")).toBe(true);
    expect(await filesUnder(root)).toHaveLength(4);
    await store.disconnect();
  });

  it("connect() creates no folder (a mount, amplifier-ts validate, leaves nothing); the first upload does", async () => {
    const parent = await folder();
    const root = join(parent, "blobs");
    const store = new FileBlobStore({ path: root });
    await store.connect();
    expect(await readdir(parent)).toEqual([]);
    expect(storeErrors.is(await store.download("k").catch((e: unknown) => e), "BLOB_NOT_FOUND")).toBe(true);
    expect(await store.delete("k")).toBe(false);
    expect(await readdir(parent)).toEqual([]);
    await store.upload("k", new TextEncoder().encode("v"), "text/plain");
    expect(await readdir(parent)).toEqual(["blobs"]);
    expect(new TextDecoder().decode((await store.download("k")).data)).toBe("v");
    await store.disconnect();
  });

  it("connect() removes the temp files a crash left, and nothing else", async () => {
    const root = await folder();
    const first = new FileBlobStore({ path: root });
    await first.upload("kept", new TextEncoder().encode("kept"), "text/plain");
    const [record] = await filesUnder(root);
    const shard = join(root, record!.slice(0, 2));
    const leftover = await crashLeftoverName(record!.slice(3));
    await writeFile(join(shard, leftover), "half a record");
    await writeFile(join(shard, "notes.txt"), "someone else's file");
    await first.disconnect();
    const second = new FileBlobStore({ path: root });
    await second.connect();
    expect((await readdir(shard)).sort()).toEqual([record!.slice(3), "notes.txt"].sort());
    expect(new TextDecoder().decode((await second.download("kept")).data)).toBe("kept");
    await second.disconnect();
  });

  it("a damaged record is STORAGE_UNAVAILABLE naming the file, not a wrong blob", async () => {
    const root = await folder();
    const store = new FileBlobStore({ path: root });
    await store.upload("a", new TextEncoder().encode("abc"), "text/plain");
    const [record] = await filesUnder(root);
    for (const damage of ["no header line at all", '{"key":"a","contentType":"text/plain","size":3}\nab', "{not json\nabc"]) {
      await writeFile(join(root, record!), damage);
      const error = await store.download("a").catch((e: unknown) => e);
      expect(isAmplifierError(error, "STORAGE_UNAVAILABLE"), damage).toBe(true);
      expect(String((error as Error).message)).toContain(record!.slice(3));
    }
    await store.disconnect();
  });

  it("a folder that cannot be created is STORAGE_UNAVAILABLE at connect (and at the first operation)", async () => {
    const root = await folder();
    await writeFile(join(root, "file"), "x");
    const store = new FileBlobStore({ path: join(root, "file", "blobs") });
    expect(isAmplifierError(await store.connect().catch((e: unknown) => e), "STORAGE_UNAVAILABLE")).toBe(true);
    expect(isAmplifierError(await store.download("k").catch((e: unknown) => e), "STORAGE_UNAVAILABLE")).toBe(true);
    expect(() => new FileBlobStore({ path: "" })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });
});

describe("PostgresBlobStore: bytea chunks, written and read a chunk at a time", () => {
  it("a 5 MiB blob is 20 rows of at most 256 KiB; a smaller replacement leaves no stale chunk; delete takes the chunks", async () => {
    const schema = testSchemaName();
    schemas.push(schema);
    const store = new PostgresBlobStore({ url: PG_URL, schema, chunkBytes: 256 * 1024 });
    const big = new Uint8Array(5 * 1024 * 1024).map((_, i) => i % 251);
    await store.upload("big.bin", big, "application/octet-stream");
    const rows = await queryOnce<{ seq: number; size: number }>(`SELECT seq, octet_length(data) AS size FROM "${schema}".amplifier_blob_chunks WHERE key = 'big.bin' ORDER BY seq`);
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(rows.every((r) => r.size === 256 * 1024)).toBe(true);
    expect(Buffer.from((await store.download("big.bin")).data).equals(Buffer.from(big))).toBe(true);
    await store.upload("big.bin", new Uint8Array(300 * 1024).fill(1), "application/octet-stream");
    const after = await queryOnce<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".amplifier_blob_chunks WHERE key = 'big.bin'`);
    expect(Number(after[0]!.n)).toBe(2);
    expect((await store.download("big.bin")).data.byteLength).toBe(300 * 1024);
    expect(await store.delete("big.bin")).toBe(true);
    expect(await queryOnce(`SELECT 1 FROM "${schema}".amplifier_blob_chunks`)).toEqual([]);
    await store.disconnect();
  }, 60_000);

  it("an upload that fails midway rolls back: the previous blob stays whole", async () => {
    const schema = testSchemaName();
    schemas.push(schema);
    const store = new PostgresBlobStore({ url: PG_URL, schema, chunkBytes: 64 * 1024 });
    await store.upload("doc", new Uint8Array(200 * 1024).fill(7), "text/plain");
    // A trigger that refuses the 3rd chunk of the next upload: the transaction fails after two chunk inserts.
    await queryOnce(`CREATE FUNCTION "${schema}".refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.seq = 2 AND octet_length(NEW.data) > 0 AND get_byte(NEW.data, 0) = 9 THEN RAISE EXCEPTION 'disk full (simulated)'; END IF; RETURN NEW; END $$`);
    await queryOnce(`CREATE TRIGGER refuse BEFORE INSERT ON "${schema}".amplifier_blob_chunks FOR EACH ROW EXECUTE FUNCTION "${schema}".refuse()`);
    const error = await store.upload("doc", new Uint8Array(300 * 1024).fill(9), "application/octet-stream").catch((e: unknown) => e);
    expect(isAmplifierError(error, "STORAGE_WRITE_FAILED")).toBe(true);
    const kept = await store.download("doc");
    expect([kept.data.byteLength, kept.contentType, kept.data.every((b) => b === 7)]).toEqual([200 * 1024, "text/plain", true]);
    await store.disconnect();
  });

  it("an unreachable server is STORAGE_UNAVAILABLE naming it without the password", async () => {
    const store = new PostgresBlobStore({ url: "postgres://u:hunter2@127.0.0.1:1/test" });
    const error = await store.download("k").catch((e: unknown) => e);
    expect(isAmplifierError(error, "STORAGE_UNAVAILABLE")).toBe(true);
    expect(String((error as Error).message)).toContain("127.0.0.1:1");
    expect(String((error as Error).message)).not.toContain("hunter2");
    await store.disconnect();
  });
});
