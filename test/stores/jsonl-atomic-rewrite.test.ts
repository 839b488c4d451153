import { readFile, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonlStore } from "../../src/modules/stores.js";
import { jsonlWriterChildren } from "./support.js";

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as { code?: string; message: string });
const msg = (text: string, runId?: string) => ({ role: "user" as const, content: text, metadata: runId ? { runId } : {} });
const texts = (messages: { content: unknown }[]) => messages.map((m) => m.content);

describe("JsonlStore rewrites (replace, clear, clearRun) are atomic", () => {
  const stores: JsonlStore[] = [];
  const temp = jsonlWriterChildren("rewrite", () => Promise.all(stores.splice(0).map((s) => s.close())));
  const storeFor = (storagePath = temp.dir) => {
    const store = new JsonlStore({ storagePath });
    stores.push(store);
    return store;
  };

  it("a crash between writing the temp file and renaming it leaves the old history intact", async () => {
    const writer = temp.start(["replace-crash", temp.dir, "s"]);
    await writer.waitFor(/^rewriting$/);
    const { signal } = await writer.exited;
    expect(signal, writer.stderr()).toBe("SIGKILL");
    expect(writer.lines).not.toContain("survived");

    const left = await readdir(temp.dir);
    const temps = left.filter((n) => n.startsWith(".s.jsonl.tmp-"));
    expect(temps, "the crash left the complete temp file").toHaveLength(1);
    expect(await readFile(join(temp.dir, temps[0]!), "utf8")).toContain("message new0");

    const { messages, recovered } = await storeFor().open("s");
    expect(messages.map((m) => m.metadata?.seq)).toEqual(["old0", "old1", "old2"]);
    expect(recovered).toBeUndefined();
    expect((await readdir(temp.dir)).sort()).toEqual(["s.jsonl", "s.jsonl.index", "s.lock"]);
  });

  it("replace writes the new history in place of the old, readable by the next instance, mode 0600", async () => {
    const store = storeFor();
    await store.appendMany("s", [msg("a"), msg("b")]);
    await store.replace("s", [msg("x")]);
    await store.append("s", msg("y"));
    await store.close();
    const file = join(temp.dir, "s.jsonl");
    expect((await readFile(file, "utf8")).trim().split("\n").map((l) => (JSON.parse(l) as { content: string }).content)).toEqual(["x", "y"]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readdir(temp.dir)).sort()).toEqual(["s.jsonl", "s.jsonl.index"]);
    expect(texts(await storeFor().read("s"))).toEqual(["x", "y"]);
  });

  it("clearRun rewrites without the run, keeping the bytes of the other records as they were", async () => {
    const store = storeFor();
    await store.appendMany("s", [msg("keep 漢"), msg("drop", "r1"), msg("keep 😀"), msg("drop too", "r1"), msg("other run", "r2")]);
    const before = (await readFile(join(temp.dir, "s.jsonl"), "utf8")).split("\n");
    await store.clearRun("s", "r1");
    const after = (await readFile(join(temp.dir, "s.jsonl"), "utf8")).split("\n");
    expect(after).toEqual([before[0], before[2], before[4], ""]);
    await store.append("s", msg("appended"));
    expect(texts(await store.read("s"))).toEqual(["keep 漢", "keep 😀", "other run", "appended"]);
  });

  it("a rewrite that fails leaves the history as it was and says STORAGE_WRITE_FAILED", async () => {
    const storagePath = join(temp.dir, "sessions");
    const store = storeFor(storagePath);
    await store.appendMany("s", [msg("a"), msg("b", "r")]);
    // The folder disappears under the store: no temp file can be created any more.
    await rm(storagePath, { recursive: true, force: true });
    const error = await failure(store.replace("s", [msg("new")]));
    expect(error?.code).toBe("STORAGE_WRITE_FAILED");
    expect(error?.message).toContain("nothing was stored");
    expect((await failure(store.clearRun("s", "r")))?.code).toBe("STORAGE_WRITE_FAILED");
    expect(texts(await store.read("s"))).toEqual(["a", "b"]);
    expect(await store.count("s")).toBe(2);
  });
});
