import { access, mkdir, readFile, readdir, symlink, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHistoryStore, JsonlStore } from "../../src/modules/stores.js";
import { makeTempDir } from "./support.js";

type Failure = { code?: string; message: string; details: { errno?: string; file?: string; hint?: string; cause?: unknown } };
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as Failure);
const msg = (text: string) => ({ role: "user" as const, content: text });
const exists = (path: string) => access(path).then(() => true, () => false);

/**
 * Tests run as root, where chmod does not block anything; these cases provoke real system errors
 * instead: a path through a regular file, a path that is a file, procfs, and /dev/full.
 */
describe("JsonlStore when storage cannot be used", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  const stores: JsonlStore[] = [];
  const storeAt = (storagePath: string) => {
    const store = new JsonlStore({ storagePath });
    stores.push(store);
    return store;
  };
  beforeEach(async () => {
    temp = await makeTempDir("unavailable");
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await temp.remove();
  });

  it("a storagePath below a regular file: STORAGE_UNAVAILABLE at first use, with the cause", async () => {
    await writeFile(join(temp.dir, "plain-file"), "x");
    const store = storeAt(join(temp.dir, "plain-file", "sessions"));
    const error = await failure(store.open("s"));
    expect(error?.code).toBe("STORAGE_UNAVAILABLE");
    expect(error?.details.errno).toBe("ENOTDIR");
    expect(error?.details.cause).toBeInstanceOf(Error);
    expect(error?.message).toContain("not a directory");
    expect((await failure(store.append("s", msg("a"))))?.code).toBe("STORAGE_UNAVAILABLE");
  });

  it("a storagePath that is a file: STORAGE_UNAVAILABLE from open and listSessions", async () => {
    const path = join(temp.dir, "i-am-a-file");
    await writeFile(path, "x");
    const store = storeAt(path);
    expect((await failure(store.open("s")))?.code).toBe("STORAGE_UNAVAILABLE");
    expect((await failure(store.listSessions()))?.code).toBe("STORAGE_UNAVAILABLE");
    expect(await readFile(path, "utf8")).toBe("x");
  });

  it("a storagePath under /proc fails fast (Node's recursive mkdir would spin forever there)", async () => {
    const error = await failure(storeAt("/proc/amplifier-test/sessions").open("s"));
    expect(error?.code).toBe("STORAGE_UNAVAILABLE");
    expect(error?.details.errno).toBe("ENOENT");
  });

  it("a storagePath through a dangling symlink fails fast", async () => {
    await symlink(join(temp.dir, "nowhere"), join(temp.dir, "dangling"));
    expect((await failure(storeAt(join(temp.dir, "dangling", "sessions")).open("s")))?.code).toBe("STORAGE_UNAVAILABLE");
  });

  it("a session file that is a directory: STORAGE_UNAVAILABLE naming the file, lock released", async () => {
    await mkdir(join(temp.dir, "s.jsonl"));
    const store = storeAt(temp.dir);
    const error = await failure(store.open("s"));
    expect(error?.code).toBe("STORAGE_UNAVAILABLE");
    expect(error?.details.file).toBe(join(temp.dir, "s.jsonl"));
    expect(await exists(join(temp.dir, "s.lock"))).toBe(false);
    // The store itself stays usable for other sessions.
    await store.append("other", msg("fine"));
    expect(await store.count("other")).toBe(1);
  });

  it("a failed open is retried by the next call, and succeeds once the storage is usable", async () => {
    const parent = join(temp.dir, "later");
    await writeFile(parent, "in the way");
    const store = storeAt(join(parent, "sessions"));
    expect((await failure(store.open("s")))?.code).toBe("STORAGE_UNAVAILABLE");
    await unlink(parent);
    await store.append("s", msg("now it works"));
    expect(await store.count("s")).toBe(1);
  });

  it("a write that fails later (disk full): STORAGE_WRITE_FAILED, nothing stored, the session keeps working", async () => {
    const store = storeAt(temp.dir);
    await store.open("s");
    // The session had no file yet; its first write will open this name, which leads to /dev/full (ENOSPC).
    await symlink("/dev/full", join(temp.dir, "s.jsonl"));
    const error = await failure(store.append("s", msg("lost")));
    expect(error?.code).toBe("STORAGE_WRITE_FAILED");
    expect(error?.details.errno).toBe("ENOSPC");
    expect(error?.message).toContain("nothing was stored");
    expect(error?.details.hint).toContain("disk is full");
    expect(await store.count("s")).toBe(0);
    expect(await store.read("s")).toEqual([]);
    expect((await failure(store.appendMany("s", [msg("x"), msg("y")])))?.code).toBe("STORAGE_WRITE_FAILED");
    expect(await store.count("s")).toBe(0);
  });

  it("nothing touches the disk before a session is used", async () => {
    const path = join(temp.dir, "not-yet");
    createHistoryStore({ type: "jsonl", storagePath: path });
    await storeAt(path).listSessions();
    expect(await readdir(temp.dir)).toEqual([]);
  });
});
