import { access, readFile, readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonlStore } from "../../src/modules/stores.js";
import { makeTempDir } from "./support.js";

const msg = (text: string) => ({ role: "user" as const, content: text, metadata: { id: text } });
const exists = (path: string) => access(path).then(() => true, () => false);

describe("JsonlStore files", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  const stores: JsonlStore[] = [];
  const storeFor = (options: ConstructorParameters<typeof JsonlStore>[0] = {}) => {
    const store = new JsonlStore({ storagePath: temp.dir, ...options });
    stores.push(store);
    return store;
  };
  beforeEach(async () => {
    temp = await makeTempDir("jsonl");
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await temp.remove();
  });

  it("writes one JSON message per line to <storagePath>/<id>.jsonl, the same in every fsync mode", async () => {
    const contents: string[] = [];
    for (const fsync of ["always", "batch", "never"] as const) {
      const store = storeFor({ storagePath: join(temp.dir, fsync), fsync });
      await Promise.all([store.append("s", msg("a")), store.appendMany("s", [msg("b"), msg("ü")]), store.append("s", msg("c"))]);
      await store.close();
      contents.push(await readFile(join(temp.dir, fsync, "s.jsonl"), "utf8"));
    }
    expect(contents[0]).toBe(["a", "b", "ü", "c"].map((t) => JSON.stringify(msg(t))).join("\n") + "\n");
    expect(new Set(contents).size).toBe(1);
  });

  it("creates the folder (0700) and files (0600) on first use", async () => {
    const storagePath = join(temp.dir, "deep", "sessions");
    const store = storeFor({ storagePath });
    await store.append("s", msg("a"));
    expect((await stat(storagePath)).mode & 0o777).toBe(0o700);
    expect((await stat(join(storagePath, "s.jsonl"))).mode & 0o777).toBe(0o600);
  });

  it("opening a session that has no file creates no file (only its lock, until close)", async () => {
    const store = storeFor();
    expect(await store.open("ghost")).toEqual({ messages: [] });
    expect(await store.count("ghost")).toBe(0);
    expect(await readdir(temp.dir)).toEqual(["ghost.lock"]);
    await store.close();
    expect(await readdir(temp.dir)).toEqual([]);
  });

  it("listSessions: exact figures for held sessions, line counts for others; ignores temp, lock and foreign files", async () => {
    const writer = storeFor();
    await writer.appendMany("held", [msg("a"), msg("b")]);
    await writer.appendMany("released", [msg("a"), msg("b"), msg("c")]);
    await writer.closeSession("released");
    await writeFile(join(temp.dir, ".released.jsonl.tmp-1-0123456789ab"), "junk\n");
    await writeFile(join(temp.dir, ".hidden.jsonl"), "{}\n");
    await writeFile(join(temp.dir, "notes.txt"), "hi\n");
    const listed = await writer.listSessions();
    expect(listed.map((s) => [s.sessionId, s.count])).toEqual([["held", 2], ["released", 3]]);
    const size = (await stat(join(temp.dir, "released.jsonl"))).size;
    expect(listed[1]).toMatchObject({ bytes: size });
    expect(Date.parse(listed[0]!.updatedAt!)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("listSessions of a folder that does not exist yet is empty", async () => {
    expect(await storeFor({ storagePath: join(temp.dir, "nope") }).listSessions()).toEqual([]);
  });

  it("deleteSession of a session this store does not hold takes its lock, then removes file and temp files", async () => {
    const first = storeFor();
    await first.append("s", msg("a"));
    await first.close();
    await writeFile(join(temp.dir, ".s.jsonl.tmp-9-00000000dead"), "junk");
    const second = storeFor();
    await second.deleteSession("s");
    expect(await readdir(temp.dir)).toEqual([]);
    expect(await storeFor({ storagePath: join(temp.dir, "absent") }).deleteSession("s")).toBeUndefined();
  });

  it("calls right after closeSession or deleteSession wait for it, then reopen the session", async () => {
    const store = storeFor();
    await store.appendMany("s", [msg("a"), msg("b")]);
    const closing = store.closeSession("s");
    const read = store.read("s");
    await closing;
    expect((await read).map((m) => m.content)).toEqual(["a", "b"]);
    const deleting = store.deleteSession("s");
    const appended = store.append("s", msg("fresh"));
    await Promise.all([deleting, appended]);
    expect((await store.read("s")).map((m) => m.content)).toEqual(["fresh"]);
    expect(await exists(join(temp.dir, "s.lock"))).toBe(true);
  });

  it("close() releases every session it holds", async () => {
    const store = storeFor();
    await Promise.all(["a", "b", "c"].map((id) => store.append(id, msg(id))));
    await store.close();
    expect((await readdir(temp.dir)).sort()).toEqual(["a.jsonl", "b.jsonl", "c.jsonl"]);
  });
});
