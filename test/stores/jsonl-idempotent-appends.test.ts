/**
 * JSONL: appends idempotent by message id across a crash (issue 25, item 4). The process that
 * wrote a message may die before it learns the write is durable; the next process retries it. A
 * retry of a line that made it whole is a no-op; a line torn by the crash is dropped at load, so
 * its retry is appended — either way the message is there once.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonlStore } from "../../src/modules/stores.js";
import { makeTempDir } from "./support.js";

const message = (text: string) => ({ role: "user" as const, content: text, metadata: { id: text } });
const line = (text: string) => JSON.stringify(message(text));

describe("JsonlStore: idempotent appends after a crash", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let file: string;
  const stores: JsonlStore[] = [];
  const open = () => {
    const store = new JsonlStore({ storagePath: temp.dir });
    stores.push(store);
    return store;
  };
  beforeEach(async () => {
    temp = await makeTempDir("idempotent");
    file = join(temp.dir, "s.jsonl");
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await temp.remove();
  });

  it("a retry of the last line written (whole) is a no-op; the file keeps one line per message", async () => {
    await writeFile(file, `${line("a")}\n${line("b")}\n`);
    const store = open();
    await store.append("s", message("b"));
    await store.appendMany("s", [message("a"), message("c")]);
    expect((await store.read("s")).map((m) => m.content)).toEqual(["a", "b", "c"]);
    expect((await readFile(file, "utf8")).trim().split("\n")).toHaveLength(3);
  });

  it("a line torn by a crash is recovered (dropped) at load, and its retry is appended once", async () => {
    await writeFile(file, `${line("a")}\n${line("b")}\n${line("c").slice(0, 20)}`);
    const store = open();
    expect((await store.open("s")).recovered?.problems.map((p) => p.kind)).toEqual(["torn-tail"]);
    await store.append("s", message("c"));
    await store.append("s", message("c"));
    await store.close();
    const again = open();
    expect((await again.read("s")).map((m) => m.content)).toEqual(["a", "b", "c"]);
    await again.append("s", message("c"));
    expect(await again.count("s")).toBe(3);
  });

  it("the ids come from the sidecar index when the load trusts it (no scan)", async () => {
    const first = open();
    await first.appendMany("s", [message("a"), message("b")]);
    await first.close(); // writes the sidecar index
    const second = open();
    await second.append("s", message("a"));
    await second.append("s", message("d"));
    expect((await second.read("s")).map((m) => m.content)).toEqual(["a", "b", "d"]);
  });
});
