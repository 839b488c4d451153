/**
 * A JsonlStore opened `readOnly` is a reader beside the session's writer (the Inspector,
 * `sessions show`, `replay`): it takes no lock, writes nothing, follows what the writer appends
 * (a line still being written is not there yet) and never stands in the writer's way.
 */
import { appendFile, readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { JsonlStore } from "../../src/modules/stores.js";
import { jsonlWriterChildren } from "./support.js";

const user = (text: string): Message => ({ role: "user", content: text, metadata: { id: text } }) as Message;
const texts = (messages: readonly Message[]) => messages.map((m) => m.content);
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as { code?: string; message: string });

describe("JsonlStore readOnly: a reader beside the writer", () => {
  const stores: JsonlStore[] = [];
  const temp = jsonlWriterChildren("reader", () => Promise.all(stores.splice(0).map((s) => s.close().catch(() => undefined))));
  const writer = () => remember(new JsonlStore({ storagePath: temp.dir, fsync: "never" }));
  const reader = (storagePath = temp.dir) => remember(new JsonlStore({ storagePath, readOnly: true }));
  const remember = (store: JsonlStore) => (stores.push(store), store);
  const folder = async () => (await readdir(temp.dir)).sort();

  it("reads a session its writer holds open, follows its appends, and leaves the writer's resume free", async () => {
    const agent = writer();
    await agent.appendMany("s", [user("a"), user("b")]);
    const before = await folder();
    const inspector = reader();
    expect(texts(await inspector.read("s"))).toEqual(["a", "b"]);
    await agent.append("s", user("c"));
    expect(await inspector.count("s")).toBe(3);
    expect(texts(await inspector.read("s", { offset: 2 }))).toEqual(["c"]);
    expect(await inspector.listSessions()).toEqual([expect.objectContaining({ sessionId: "s", count: 3 })]);
    expect(await folder()).toEqual(before);
    // The reader stays open; the agent closes and a new agent resumes the session.
    await agent.close();
    const resumed = writer();
    const { messages } = await resumed.open("s");
    expect(texts(messages)).toEqual(["a", "b", "c"]);
    await resumed.append("s", user("d"));
    expect(texts(await inspector.read("s"))).toEqual(["a", "b", "c", "d"]);
  });

  it("takes no lock: a writer process opens the session the reader has open", async () => {
    const seed = writer();
    await seed.append("s", user("a"));
    await seed.close();
    const inspector = reader();
    expect(texts((await inspector.open("s")).messages)).toEqual(["a"]);
    const agent = temp.start(["hold", temp.dir, "s"]);
    expect(await agent.waitFor(/^(locked|refused)/)).toBe("locked");
  });

  it("a torn last line is not there yet; it appears once its writer finishes it", async () => {
    const file = join(temp.dir, "s.jsonl");
    await writeFile(file, `${JSON.stringify(user("a"))}\n`);
    const inspector = reader();
    const line = JSON.stringify(user("b"));
    await appendFile(file, line.slice(0, 10));
    expect(texts(await inspector.read("s"))).toEqual(["a"]);
    expect((await inspector.open("s")).recovered).toBeUndefined();
    await appendFile(file, `${line.slice(10)}\n`);
    expect(texts(await inspector.read("s"))).toEqual(["a", "b"]);
  });

  it("sees a rewrite (replace: a new file by rename) instead of reading past it", async () => {
    const agent = writer();
    await agent.appendMany("s", [user("a"), user("b"), user("c")]);
    const inspector = reader();
    expect(await inspector.count("s")).toBe(3);
    await agent.replace("s", [user("x"), user("y"), user("z"), user("w")]);
    expect(texts(await inspector.read("s"))).toEqual(["x", "y", "z", "w"]);
    await agent.replace("s", [user("only")]);
    expect(texts(await inspector.read("s"))).toEqual(["only"]);
  });

  it("follows a writer process that appends and rewrites without pause: every read is a whole prefix, in order", async () => {
    const agent = temp.start(["append", temp.dir, "s", "never"]);
    await agent.waitFor(/^ready/);
    await agent.waitFor(/^ack 5$/);
    const inspector = reader();
    let last = 0;
    for (let round = 0; round < 30 || last < 50; round++) {
      const messages = await inspector.read("s");
      expect(texts(messages)).toEqual(messages.map((_, i) => `message ${i}`));
      expect(messages.length).toBeGreaterThanOrEqual(last);
      last = messages.length;
      if (round > 2000) throw new Error(`the writer process made no progress (${last} messages)`);
    }
  });

  it("reads a file larger than its read chunk (4 MiB), with a line longer than a chunk, whole and in order", async () => {
    const file = join(temp.dir, "big.jsonl");
    const long = user(`long ${"x".repeat(5 * 1024 * 1024)}`);
    const many = Array.from({ length: 3000 }, (_, i) => user(`m${i} ${"y".repeat(1500)}`));
    await writeFile(file, [many[0]!, long, ...many.slice(1)].map((m) => `${JSON.stringify(m)}\n`).join(""));
    const inspector = reader();
    expect(await inspector.count("big")).toBe(3001);
    const messages = await inspector.read("big");
    expect(messages[1]!.content).toBe(long.content);
    expect(messages.map((m) => (m.content as string).split(" ")[0])).toEqual(["m0", "long", ...many.slice(1).map((_, i) => `m${i + 1}`)]);
    await appendFile(file, `${JSON.stringify(user("after"))}\n`);
    expect((await inspector.read("big", { offset: 3001 })).map((m) => m.content)).toEqual(["after"]);
  });

  it("refuses every write with STORE_READ_ONLY and writes nothing, not even a folder", async () => {
    const missing = join(temp.dir, "nothing-here");
    const inspector = reader(missing);
    expect(await inspector.read("s")).toEqual([]);
    expect(await inspector.count("s")).toBe(0);
    expect(await inspector.listSessions()).toEqual([]);
    for (const write of [
      inspector.append("s", user("a")),
      inspector.appendMany("s", [user("a")]),
      inspector.replace("s", [user("a")]),
      inspector.clear("s"),
      inspector.clearRun("s", "run"),
      inspector.deleteSession("s"),
      inspector.writeAttachment("s", "counts", "{}"),
    ]) {
      expect(await failure(write)).toMatchObject({ code: "STORE_READ_ONLY" });
    }
    await expect(stat(missing)).rejects.toMatchObject({ code: "ENOENT" });
  });
});
