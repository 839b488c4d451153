import { access, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { JsonlStore } from "../../src/modules/stores.js";
import { deadPid, jsonlWriterChildren } from "./support.js";

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as { code?: string; message: string; details: Record<string, unknown> });
const exists = (path: string) => access(path).then(() => true, () => false);
const msg = (text: string) => ({ role: "user" as const, content: text });

describe("JsonlStore: one writer per session", () => {
  let lockFile: string;
  const stores: JsonlStore[] = [];
  const temp = jsonlWriterChildren("lock", () => Promise.all(stores.splice(0).map((s) => s.close())));
  const storeHere = () => {
    const store = new JsonlStore({ storagePath: temp.dir });
    stores.push(store);
    return store;
  };
  const holdInChild = async (sessionId = "s") => {
    const writer = temp.start(["hold", temp.dir, sessionId]);
    await writer.waitFor(/^(locked|refused)/);
    return writer;
  };

  beforeEach(() => {
    lockFile = join(temp.dir, "s.lock");
  });

  it("holds <id>.lock with its pid while the session is open, and removes it on close", async () => {
    const store = storeHere();
    await store.open("s");
    const owner = JSON.parse(await readFile(lockFile, "utf8")) as { pid: number; host: string };
    expect(owner).toMatchObject({ pid: process.pid, host: hostname() });
    await store.close();
    expect(await exists(lockFile)).toBe(false);
  });

  it("closeSession releases the lock for another writer; deleteSession removes file and lock", async () => {
    const first = storeHere();
    await first.append("s", msg("a"));
    await first.closeSession("s");
    expect(await exists(lockFile)).toBe(false);
    const second = storeHere();
    expect((await second.read("s")).map((m) => m.content)).toEqual(["a"]);
    await second.deleteSession("s");
    expect(await exists(lockFile)).toBe(false);
    expect(await exists(join(temp.dir, "s.jsonl"))).toBe(false);
  });

  it("refuses a second store instance in the same process with SESSION_LOCKED naming the lock file", async () => {
    const first = storeHere();
    await first.append("s", msg("a"));
    const second = storeHere();
    const error = await failure(second.append("s", msg("b")));
    expect(error?.code).toBe("SESSION_LOCKED");
    expect(error?.message).toContain("another store in this process");
    expect(error?.message).toContain(lockFile);
    // The holder is unaffected; once it lets go, the same second instance can open the session.
    await first.append("s", msg("c"));
    await first.close();
    expect((await second.read("s")).map((m) => m.content)).toEqual(["a", "c"]);
  });

  it("SESSION_LOCKED for a live holder says it is running and how to check it, and never advises deleting its lock", async () => {
    const holder = await holdInChild();
    const error = await failure(storeHere().open("s"));
    const hint = String(error?.details.hint);
    expect(error?.message).toContain(`process ${holder.child.pid}, which is running`);
    expect(hint).toContain(`ps -p ${holder.child.pid}`);
    expect(hint).toContain("do not delete the lock file while it runs");
    expect(hint).toContain("readOnly");
    expect(hint).not.toMatch(/if it no longer runs, delete the lock file/);
  });

  it("refuses a session held by another process, naming its pid; takes it over once that process is killed", async () => {
    const holder = await holdInChild();
    expect(holder.lines).toContain("locked");
    const store = storeHere();
    const error = await failure(store.open("s"));
    expect(error?.code).toBe("SESSION_LOCKED");
    expect(error?.message).toContain(`process ${holder.child.pid}`);
    expect(error?.details.owner).toMatchObject({ pid: holder.child.pid });
    expect((await failure(store.deleteSession("s")))?.code).toBe("SESSION_LOCKED");

    holder.child.kill("SIGKILL");
    await holder.exited;
    expect(await exists(lockFile)).toBe(true);
    await store.append("s", msg("mine now"));
    expect(JSON.parse(await readFile(lockFile, "utf8"))).toMatchObject({ pid: process.pid });
  });

  it("takes over a stale lock whose process is gone", async () => {
    await writeFile(lockFile, JSON.stringify({ pid: await deadPid(), host: hostname(), token: "old", createdAt: "2020-01-01T00:00:00Z" }));
    const store = storeHere();
    await store.append("s", msg("a"));
    expect(JSON.parse(await readFile(lockFile, "utf8"))).toMatchObject({ pid: process.pid });
  });

  it("takes over a lock left by an earlier process that had this pid (pid reuse in containers)", async () => {
    await writeFile(lockFile, JSON.stringify({ pid: process.pid, host: hostname(), token: "earlier-life", createdAt: "" }));
    await storeHere().open("s");
    expect(JSON.parse(await readFile(lockFile, "utf8"))).not.toMatchObject({ token: "earlier-life" });
  });

  it("takes over an unreadable lock file, and accepts a bare pid written by hand", async () => {
    await writeFile(lockFile, "not json at all");
    await storeHere().open("s");
    await stores[0]!.close();
    await writeFile(lockFile, `${await deadPid()}\n`);
    await storeHere().open("s");
  });

  it("does not take over a lock from another host: its pid cannot be checked from here", async () => {
    await writeFile(lockFile, JSON.stringify({ pid: 1, host: "some-other-host", token: "t", createdAt: "2024-05-01T00:00:00Z" }));
    const error = await failure(storeHere().open("s"));
    expect(error?.code).toBe("SESSION_LOCKED");
    expect(error?.message).toContain("some-other-host");
  });

  it("of many processes racing for one stale lock, exactly one wins", async () => {
    await writeFile(lockFile, JSON.stringify({ pid: await deadPid(), host: hostname(), token: "stale", createdAt: "" }));
    const racers = Array.from({ length: 6 }, () => {
      const w = temp.start(["hold", temp.dir, "s"]);
      return w;
    });
    const outcomes = await Promise.all(racers.map((w) => w.waitFor(/^(locked|refused)/, 15_000)));
    expect(outcomes.filter((o) => o === "locked")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "refused SESSION_LOCKED")).toHaveLength(5);
  });
});
