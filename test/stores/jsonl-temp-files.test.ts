import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonlStore } from "../../src/modules/stores.js";
import { makeTempDir } from "./support.js";

const msg = (text: string) => ({ role: "user" as const, content: text, metadata: { id: text } });
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as { code?: string });

/**
 * Session ids may contain `.jsonl.tmp-`, so the temp files of one session's rewrites must never be
 * confused with another session's files — neither when they are written nor when a crash's leftovers
 * are cleaned up at open/delete.
 */
describe("JsonlStore temp files never touch another session", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  const stores: JsonlStore[] = [];
  const storeFor = () => {
    const store = new JsonlStore({ storagePath: temp.dir });
    stores.push(store);
    return store;
  };
  beforeEach(async () => {
    temp = await makeTempDir("jsonl-temp");
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await temp.remove();
  });

  // Ids that look like the temp files of session "a", in today's and in the earlier naming.
  const lookalikes = ["a.jsonl.tmp-x", "a.jsonl.tmp-1-0123456789ab"];

  it("opening and deleting session a keeps the files and locks of sessions a.jsonl.tmp-… whose writer holds them", async () => {
    const writer = storeFor();
    for (const id of lookalikes) {
      for (let i = 0; i < 6; i++) await writer.append(id, msg(`${id} #${i}`));
    }
    const before = (await readdir(temp.dir)).sort();

    const other = storeFor();
    expect((await other.open("a")).messages).toEqual([]);
    await other.replace("a", [msg("a0")]); // a rewrite: temp file + rename
    await other.deleteSession("a");

    expect((await readdir(temp.dir)).sort()).toEqual(before);
    for (const id of lookalikes) {
      // The lock is intact: a second store instance is still refused.
      expect((await failure(storeFor().open(id)))?.code).toBe("SESSION_LOCKED");
      await writer.append(id, msg(`${id} #6`));
    }
    await writer.close();
    const reader = storeFor();
    for (const id of lookalikes) {
      expect((await reader.read(id)).map((m) => m.content)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `${id} #${i}`));
    }
  });

  it("temp file names start with a dot (no session id does) and the cleanup removes exactly the session's own", async () => {
    const store = storeFor();
    await store.append("s", msg("a"));
    await store.close();
    const own = [".s.jsonl.tmp-123-0123456789ab", "s.jsonl.tmp-9-abcdefabcdef"]; // current and earlier naming
    const foreign = [".s.jsonl.tmp-x.jsonl", "s.jsonl.tmp-x.lock", "s.jsonl.tmp-1-0123456789ab.jsonl", ".t.jsonl.tmp-1-0123456789ab", "s.jsonl.tmp-1-abc"];
    for (const name of [...own, ...foreign]) await writeFile(join(temp.dir, name), "junk\n");

    const reopened = storeFor();
    expect((await reopened.open("s")).messages.map((m) => m.content)).toEqual(["a"]);
    expect((await readdir(temp.dir)).sort()).toEqual([...foreign, "s.jsonl", "s.jsonl.index", "s.lock"].sort());

    await reopened.replace("s", [msg("b")]);
    const left = await readdir(temp.dir);
    expect(left.filter((n) => n.includes(".tmp-") && !foreign.includes(n))).toEqual([]);
  });
});
