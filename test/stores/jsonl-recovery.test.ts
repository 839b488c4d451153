import { appendFile, mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RecoveryReport } from "../../contracts/history-store.js";
import { JsonlStore } from "../../src/modules/stores.js";
import { makeTempDir } from "./support.js";

const line = (text: string) => JSON.stringify({ role: "user", content: text, metadata: { id: text } });
const texts = (messages: { content: unknown }[]) => messages.map((m) => m.content);

/** Every line of the file parses: the file is valid JSONL. */
async function expectValidJsonl(file: string): Promise<unknown[]> {
  const text = await readFile(file, "utf8");
  expect(text === "" || text.endsWith("\n"), "ends with a newline").toBe(true);
  return text.split("\n").filter(Boolean).map((l) => JSON.parse(l) as unknown);
}

describe("JsonlStore recovery of damaged session files", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let file: string;
  const stores: JsonlStore[] = [];
  const storeFor = (onRecover?: (r: RecoveryReport) => void) => {
    const store = new JsonlStore({ storagePath: temp.dir, onRecover });
    stores.push(store);
    return store;
  };
  beforeEach(async () => {
    temp = await makeTempDir("recovery");
    file = join(temp.dir, "s.jsonl");
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await temp.remove();
  });

  it("skips a torn last line and reports it from open() and onRecover, without touching the file", async () => {
    const torn = '{"role":"user","content":"half';
    const content = `${line("a")}\n${line("b")}\n${torn}`;
    await writeFile(file, content);
    const onRecover = vi.fn();
    const { messages, recovered } = await storeFor(onRecover).open("s");
    expect(texts(messages)).toEqual(["a", "b"]);
    expect(recovered).toMatchObject({ sessionId: "s", skippedLines: 1, skippedBytes: Buffer.byteLength(torn) });
    expect(recovered?.problems).toEqual([
      expect.objectContaining({ kind: "torn-tail", line: 3, offset: Buffer.byteLength(`${line("a")}\n${line("b")}\n`), bytes: Buffer.byteLength(torn), preview: torn }),
    ]);
    expect(onRecover).toHaveBeenCalledTimes(1);
    expect(onRecover).toHaveBeenCalledWith(recovered);
    expect(await readFile(file, "utf8")).toBe(content);
  });

  it("cuts the torn tail before the next append, so the file is valid JSONL again", async () => {
    await writeFile(file, `${line("a")}\n{"role":"us`);
    const store = storeFor();
    await store.open("s");
    await store.append("s", { role: "user", content: "c" });
    expect(await expectValidJsonl(file)).toHaveLength(2);
    expect(texts(await store.read("s"))).toEqual(["a", "c"]);
    await store.close();
    const again = await storeFor().open("s");
    expect(again.recovered).toBeUndefined();
    expect(texts(again.messages)).toEqual(["a", "c"]);
  });

  it("treats a multi-byte character cut in half as a torn tail", async () => {
    const whole = Buffer.from(`${line("漢字")}\n`);
    const partial = Buffer.from(line("漢字")).subarray(0, 30);
    await writeFile(file, Buffer.concat([whole, partial]));
    const store = storeFor();
    const { messages, recovered } = await store.open("s");
    expect(texts(messages)).toEqual(["漢字"]);
    expect(recovered?.problems.map((p) => p.kind)).toEqual(["torn-tail"]);
    await store.append("s", { role: "user", content: "next" });
    expect(await expectValidJsonl(file)).toHaveLength(2);
  });

  it("a file holding only a torn line opens empty and takes appends", async () => {
    await writeFile(file, '{"role":"assis');
    const store = storeFor();
    const { messages, recovered } = await store.open("s");
    expect(messages).toEqual([]);
    expect(recovered?.skippedLines).toBe(1);
    await store.append("s", { role: "user", content: "first" });
    expect(await readFile(file, "utf8")).toBe(`${JSON.stringify({ role: "user", content: "first" })}\n`);
  });

  it("skips and reports corrupt lines in the middle, keeps the lines after them, and leaves them until a rewrite", async () => {
    await writeFile(file, [line("a"), "garbage{", line("b"), '{"no":"role"}', "[1,2]", line("c"), ""].join("\n"));
    const store = storeFor();
    const { messages, recovered } = await store.open("s");
    expect(texts(messages)).toEqual(["a", "b", "c"]);
    expect(recovered?.problems.map((p) => [p.kind, p.line])).toEqual([["corrupt-record", 2], ["corrupt-record", 4], ["corrupt-record", 5]]);
    expect(recovered?.skippedLines).toBe(3);
    await store.append("s", { role: "user", content: "d" });
    expect(texts(await store.read("s"))).toEqual(["a", "b", "c", "d"]);
    await store.close();

    const second = storeFor();
    expect((await second.open("s")).recovered?.skippedLines).toBe(3);
    await second.clearRun("s", "no-such-run");
    expect((await second.open("s")).recovered?.skippedLines).toBe(3);
    await second.replace("s", await second.read("s"));
    expect((await second.open("s")).recovered).toBeUndefined();
    await second.close();
    expect((await storeFor().open("s")).recovered).toBeUndefined();
    expect(await expectValidJsonl(file)).toHaveLength(4);
  });

  it("keeps a whole last record that lost its newline, and adds the newline before the next append", async () => {
    await writeFile(file, `${line("a")}\n${line("b")}`);
    const store = storeFor();
    const { messages, recovered } = await store.open("s");
    expect(texts(messages)).toEqual(["a", "b"]);
    expect(recovered).toMatchObject({ skippedLines: 0, skippedBytes: 0 });
    expect(recovered?.problems.map((p) => p.kind)).toEqual(["missing-newline"]);
    await store.append("s", { role: "user", content: "c" });
    expect(await expectValidJsonl(file)).toHaveLength(3);
    expect(texts(await store.read("s"))).toEqual(["a", "b", "c"]);
  });

  it("ignores blank lines and CRLF line ends without reporting them", async () => {
    await writeFile(file, `\n${line("a")}\r\n   \n\n${line("b")}\n\n`);
    const { messages, recovered } = await storeFor().open("s");
    expect(texts(messages)).toEqual(["a", "b"]);
    expect(recovered).toBeUndefined();
  });

  it("a throwing onRecover is reported as a process warning and does not block the session", async () => {
    await writeFile(file, `${line("a")}\n{"ro`);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on("warning", onWarning);
    try {
      const { messages } = await storeFor(() => {
        throw new Error("observer broke");
      }).open("s");
      expect(texts(messages)).toEqual(["a"]);
      await new Promise((r) => setImmediate(r));
      expect(warnings.some((w) => w.includes("observer broke"))).toBe(true);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("deletes temp files a crashed rewrite left behind when the session opens", async () => {
    await writeFile(file, `${line("a")}\n`);
    await writeFile(join(temp.dir, ".s.jsonl.tmp-123-0123456789ab"), `${line("half-written")}\n`);
    await writeFile(join(temp.dir, ".other.jsonl.tmp-1-0123456789ab"), "keep: another session's");
    expect(texts((await storeFor().open("s")).messages)).toEqual(["a"]);
    expect((await readdir(temp.dir)).sort()).toEqual([".other.jsonl.tmp-1-0123456789ab", "s.jsonl", "s.jsonl.index", "s.lock"]);
  });

  it("reads the file once: later calls are served from what was loaded", async () => {
    await mkdir(temp.dir, { recursive: true });
    await writeFile(file, `${line("a")}\n${line("b")}\n`);
    const store = storeFor();
    await store.open("s");
    // Written behind the store's back (it holds the lock, so nobody should): not seen.
    await appendFile(file, `${line("intruder")}\n`);
    expect(await store.count("s")).toBe(2);
    expect(texts(await store.read("s"))).toEqual(["a", "b"]);
  });

  it("pages through a freshly loaded session correctly, first from the parsed copy, then from the file", async () => {
    await writeFile(file, ["α", "β", "γ", "δ"].map(line).join("\n") + "\n");
    const store = storeFor();
    expect(texts(await store.read("s", { offset: 1, limit: 2 }))).toEqual(["β", "γ"]);
    expect(texts(await store.read("s", { offset: 1, limit: 2 }))).toEqual(["β", "γ"]);
    expect(texts(await store.read("s"))).toEqual(["α", "β", "γ", "δ"]);
  });
});
