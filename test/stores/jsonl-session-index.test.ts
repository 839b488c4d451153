/**
 * The sidecar index of a JSONL session (modules/stores/session-index-file.ts): built, kept in
 * step with appends, never trusted when stale, missing, corrupt or torn — and a lazily loaded
 * history gives the same windows as the eager one.
 */
import { appendFile, readdir, readFile, stat, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { MESSAGE_FACTS, factsOf, messageBody } from "../../contracts/index.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { isUnparsed } from "../../modules/stores/lazy-message.js";
import { WindowAssembler } from "../../modules/window/index.js";
import { JsonlStore } from "../../src/modules/stores.js";
import { toolHistoryArbitrary } from "../../testing/arbitraries.js";
import { propertyRuns } from "../../testing/property-runs.js";
import { fakeCounter } from "../window/fake-counter.js";
import { makeTempDir } from "./support.js";

const user = (text: string, extra: Partial<Message> = {}): Message => ({ role: "user", content: text, metadata: { id: text }, ...extra }) as Message;
const call = (id: string): Message => ({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "read", arguments: "{}" } }], metadata: { id: `call-${id}` } }) as Message;
const result = (id: string): Message => ({ role: "tool", tool_call_id: id, content: `result of ${id}`, metadata: { id: `result-${id}` } }) as Message;
const history = (): Message[] => [
  { role: "system", content: "be brief", metadata: { id: "sys" } } as Message,
  user("u1"),
  call("c1"),
  result("c1"),
  { role: "assistant", content: "done", metadata: { id: "a1", critical: true } } as Message,
  user("u2", { metadata: { id: "u2", runId: "run-1" } } as Partial<Message>),
];
/** What a resume must read back: each message as JSON would carry it. */
const plain = (messages: readonly Message[]) => JSON.parse(JSON.stringify(messages)) as Message[];

describe("JSONL sidecar index", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let file: string;
  let indexFile: string;
  const stores: JsonlStore[] = [];
  const storeAt = () => {
    const store = new JsonlStore({ storagePath: temp.dir, fsync: "never" });
    stores.push(store);
    return store;
  };
  /** Opens the session in a fresh store, reads it, closes the store. */
  const reopen = async () => {
    const store = storeAt();
    const { messages, recovered } = await store.open("s");
    const lazy = messages.filter(isUnparsed).length;
    const copy = plain(messages);
    await store.close();
    return { messages: copy, lazy, recovered };
  };
  beforeEach(async () => {
    temp = await makeTempDir("session-index");
    file = join(temp.dir, "s.jsonl");
    indexFile = `${file}.index`;
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await temp.remove();
  });

  it("is written by replace, and a resume with it parses nothing until a message is read", async () => {
    const store = storeAt();
    await store.replace("s", history());
    await store.close();
    expect((await readFile(indexFile, "utf8")).split("\n")[0]).toContain("amplifier-ts/session-index");
    const again = storeAt();
    const { messages } = await again.open("s");
    expect(messages.every(isUnparsed)).toBe(true);
    // The shape helpers and role answer from the index: still unparsed.
    expect(messages.map((m) => m.role)).toEqual(history().map((m) => m.role));
    expect(messages.map((m) => (m as unknown as Record<symbol, unknown>)[MESSAGE_FACTS])).toEqual(history().map(factsOf));
    expect(messages.every(isUnparsed)).toBe(true);
    // Reading content parses that one message only.
    expect(messages[3]!.content).toBe("result of c1");
    expect(messages.filter(isUnparsed)).toHaveLength(history().length - 1);
    expect(plain(messages)).toEqual(plain(history()));
    expect({ ...messages[4]! }).toEqual(plain(history())[4]);
    expect(Object.keys(messages[2]!)).toEqual(Object.keys(history()[2]!));
  });

  it("a lazy message behaves as a plain object: copies come from its parsed body, freezing and definitions hold", async () => {
    await seed();
    const store = storeAt();
    const { messages } = await store.open("s");
    const [system, first] = messages as [Message, Message];
    const body = messageBody(first);
    expect(body).not.toBe(first);
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(body).toEqual(plain(history())[1]);
    expect(isUnparsed(first)).toBe(false);
    expect(messageBody(user("plain"))).toEqual(user("plain"));
    // Freezing goes to the proxy's own target (the language checks it); the message stays readable and equal.
    Object.freeze(system);
    expect(Object.isFrozen(system)).toBe(true);
    expect(() => {
      "use strict";
      (system as { content: unknown }).content = "changed";
    }).toThrow(TypeError);
    expect(plain([system])).toEqual(plain(history().slice(0, 1)));
    expect((system as unknown as Record<symbol, unknown>)[MESSAGE_FACTS]).toEqual(factsOf(history()[0]!));
    Object.defineProperty(first, "extra", { value: 1, enumerable: false, configurable: false });
    expect(Object.getOwnPropertyDescriptor(first, "extra")).toMatchObject({ value: 1, configurable: false });
    expect(plain([first])).toEqual(plain(history().slice(1, 2)));
  });

  it("is kept in step with appends: every reopen is lazy and reads back every message", async () => {
    const store = storeAt();
    await store.replace("s", history().slice(0, 2));
    for (const m of history().slice(2)) await store.append("s", m);
    await store.close();
    const first = await reopen();
    expect(first.lazy).toBe(history().length);
    expect(first.messages).toEqual(plain(history()));
    // Appends after a lazy resume extend the same index.
    const more = storeAt();
    await more.open("s");
    await more.appendMany("s", [user("u3"), user("u4")]);
    await more.close();
    const second = await reopen();
    expect(second.lazy).toBe(history().length + 2);
    expect(second.messages).toEqual(plain([...history(), user("u3"), user("u4")]));
  });

  it("is built by the first open of a file that has none (an older file), then used", async () => {
    await writeFile(file, history().map((m) => `${JSON.stringify(m)}\n`).join(""));
    const first = await reopen();
    expect(first.lazy).toBe(0);
    expect(first.messages).toEqual(plain(history()));
    const second = await reopen();
    expect(second.lazy).toBe(history().length);
    expect(second.messages).toEqual(plain(history()));
  });

  it("is not trusted when the file grew behind its back (another program appended): scanned, rebuilt", async () => {
    await seed();
    await appendFile(file, `${JSON.stringify(user("outside"))}\n`);
    const first = await reopen();
    expect(first.lazy).toBe(0);
    expect(first.messages).toEqual(plain([...history(), user("outside")]));
    expect((await reopen()).lazy).toBe(history().length + 1);
  });

  it("is not trusted after an edit that keeps the size (mtime differs), nor after one that keeps size and mtime (the last record's hash differs)", async () => {
    await seed();
    const text = await readFile(file, "utf8");
    const edited = text.replace('"content":"u2"', '"content":"U2"');
    expect(edited.length).toBe(text.length);
    await writeFile(file, edited);
    const first = await reopen();
    expect(first.lazy).toBe(0);
    expect(first.messages.at(-1)?.content).toBe("U2");
    // Put the old last record back, then seal the index with the file's new mtime: size and
    // mtime match, only the hash of the last record can tell.
    await writeFile(file, text);
    await sealWithMtime();
    const second = await reopen();
    expect(second.lazy).toBe(0);
    expect(second.messages.at(-1)?.content).toBe("u2");
  });

  it("is rebuilt when corrupt, torn, of another version, or missing", async () => {
    for (const damage of [
      async () => writeFile(indexFile, "garbage\n"),
      async () => appendFile(indexFile, '[1,2,"user"'),
      async () => writeFile(indexFile, (await readFile(indexFile, "utf8")).replace('"version":2', '"version":9')),
      async () => writeFile(indexFile, (await readFile(indexFile, "utf8")).replace(/,"(user|assistant)",/, ',"wizard",')),
      async () => truncate(indexFile, 0),
    ]) {
      await seed();
      await damage();
      const first = await reopen();
      expect(first.lazy).toBe(0);
      expect(first.messages).toEqual(plain(history()));
      expect((await reopen()).lazy).toBe(history().length);
    }
  });

  it("a crash between the data write and the index write (index one append behind) is detected", async () => {
    await seed();
    const before = await readFile(indexFile, "utf8");
    const store = storeAt();
    await store.open("s");
    await store.append("s", user("late"));
    await store.close();
    // As if the process died before the index line reached the disk.
    await writeFile(indexFile, before);
    const after = await reopen();
    expect(after.lazy).toBe(0);
    expect(after.messages).toEqual(plain([...history(), user("late")]));
  });

  it("a crash mid-append (torn last record in the session file) is recovered as before, and the index is not used", async () => {
    await seed();
    await appendFile(file, '{"role":"user","content":"half');
    const after = await reopen();
    expect(after.lazy).toBe(0);
    expect(after.recovered?.problems.map((p) => p.kind)).toEqual(["torn-tail"]);
    expect(after.messages).toEqual(plain(history()));
    // The next write cuts the torn tail; the index comes back after the next clean load.
    const store = storeAt();
    await store.open("s");
    await store.append("s", user("next"));
    await store.close();
    expect((await reopen()).messages).toEqual(plain([...history(), user("next")]));
    expect((await reopen()).lazy).toBe(history().length + 1);
  });

  it("clearRun drops the index (rebuilt at the next load), destroy removes it", async () => {
    await seed();
    const store = storeAt();
    await store.open("s");
    await store.clearRun("s", "run-1");
    await store.close();
    const cleared = history().filter((m) => m.metadata?.runId !== "run-1");
    expect((await reopen()).messages).toEqual(plain(cleared));
    expect((await reopen()).lazy).toBe(cleared.length);
    const last = storeAt();
    await last.deleteSession("s");
    await expect(stat(indexFile)).rejects.toMatchObject({ code: "ENOENT" });
  });

  describe("readOnly (sessions show, the inspector: a store opened to be read)", () => {
    const readOnlyStore = () => {
      const store = new JsonlStore({ storagePath: temp.dir, fsync: "never", readOnly: true });
      stores.push(store);
      return store;
    };
    const folder = async () => (await readdir(temp.dir)).sort();

    it("an open of a file without an index writes nothing beside it (scanned, all messages); a writable open then writes the index", async () => {
      await writeFile(file, history().map((m) => `${JSON.stringify(m)}\n`).join(""));
      const store = readOnlyStore();
      const { messages } = await store.open("s");
      expect(messages.filter(isUnparsed)).toEqual([]);
      expect(plain(messages)).toEqual(plain(history()));
      expect(await store.read("s")).toHaveLength(history().length);
      expect(await folder()).toEqual(["s.jsonl"]);
      await store.close();
      expect(await folder()).toEqual(["s.jsonl"]);
      expect((await reopen()).lazy).toBe(0);
      expect(await folder()).toEqual(["s.jsonl", "s.jsonl.index"]);
    });

    it("refuses an append (STORE_READ_ONLY) and leaves the file and the folder as they were", async () => {
      await writeFile(file, history().map((m) => `${JSON.stringify(m)}\n`).join(""));
      const before = await readFile(file, "utf8");
      const store = readOnlyStore();
      await store.open("s");
      await expect(store.append("s", user("late"))).rejects.toMatchObject({ code: "STORE_READ_ONLY" });
      await store.close();
      expect(await folder()).toEqual(["s.jsonl"]);
      expect(await readFile(file, "utf8")).toBe(before);
    });

    it("a trusted index is left as it was", async () => {
      await seed();
      const before = await readFile(indexFile, "utf8");
      const store = readOnlyStore();
      const { messages } = await store.open("s");
      expect(plain(messages)).toEqual(plain(history()));
      await store.close();
      expect(await readFile(indexFile, "utf8")).toBe(before);
    });

    it("a stale index is neither trusted nor deleted; the reader sees the line appended outside", async () => {
      await seed();
      await appendFile(file, `${JSON.stringify(user("outside"))}\n`);
      const stale = await readFile(indexFile, "utf8");
      const store = readOnlyStore();
      const { messages } = await store.open("s");
      expect(plain(messages)).toEqual(plain([...history(), user("outside")]));
      await store.close();
      expect(await readFile(indexFile, "utf8")).toBe(stale);
    });

    it("rejects a readOnly that is not a boolean (INVALID_ARGUMENT naming the option)", () => {
      expect(() => new JsonlStore({ storagePath: temp.dir, readOnly: "yes" as unknown as boolean })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "options.readOnly" }) }));
    });
  });

  it("a record changed under a trusted index is STORAGE_UNAVAILABLE when read, never a wrong message", async () => {
    await seed();
    const text = await readFile(file, "utf8");
    // Same size, the last record untouched, the seal made to match the new mtime: the index is
    // trusted (what it cannot see), and the changed record is refused when the window reads it.
    await writeFile(file, text.replace('"role":"system"', '"role":"sysxem"'));
    await sealWithMtime();
    const store = storeAt();
    const { messages } = await store.open("s");
    expect(messages.every(isUnparsed)).toBe(true);
    expect(() => messages[0]!.content).toThrow(expect.objectContaining({ code: "STORAGE_UNAVAILABLE" }));
    expect(() => messages[1]!.content).not.toThrow();
  });

  it(`a lazily loaded history gives the same windows as the eager one (${Math.min(propertyRuns(25), 500)} random sessions)`, async () => {
    const counter = fakeCounter();
    const real = getTokenCounter("gpt-4o");
    let n = 0;
    await fc.assert(
      fc.asyncProperty(toolHistoryArbitrary(), fc.integer({ min: 60, max: 6_000 }), fc.integer({ min: 0, max: 5 }), async (generated, budget, appended) => {
        const stored = generated.filter((m) => m.metadata?.ephemeral !== true);
        const id = `p${n++}`;
        const store = storeAt();
        const split = Math.max(0, stored.length - appended);
        await store.replace(id, stored.slice(0, split));
        if (split < stored.length) await store.appendMany(id, stored.slice(split));
        await store.close();
        const again = storeAt();
        const { messages } = await again.open(id);
        expect(messages.every(isUnparsed)).toBe(true);
        const eager = plain(stored);
        for (const c of [counter, real]) {
          const lazyWindow = windowOf(messages, c, budget);
          const eagerWindow = windowOf(eager, c, budget);
          expect(lazyWindow).toEqual(eagerWindow);
        }
        expect(plain(messages)).toEqual(eager);
        await again.close();
      }),
      { numRuns: Math.min(propertyRuns(25), 500) },
    );
  }, 120_000);

  /** Rewrites the index's last seal with the session file's current mtime (as if it had been sealed after the last change). */
  async function sealWithMtime(): Promise<void> {
    const { mtimeMs } = await stat(file);
    const index = await readFile(indexFile, "utf8");
    const at = index.lastIndexOf('"mtimeMs":');
    const end = index.indexOf(",", at);
    await writeFile(indexFile, `${index.slice(0, at)}"mtimeMs":${mtimeMs}${index.slice(end)}`);
  }

  async function seed(): Promise<void> {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    const store = storeAt();
    await store.deleteSession("s").catch(() => undefined);
    await store.replace("s", history());
    await store.close();
  }
});

function windowOf(messages: readonly Message[], counter: ReturnType<typeof fakeCounter> | ReturnType<typeof getTokenCounter>, budget: number): unknown {
  try {
    const { messages: window, report } = new WindowAssembler(messages).assemble({ budget, counter });
    return { window: JSON.parse(JSON.stringify(window)) as unknown, tokens: report.windowTokens, cut: report.firstKeptId ?? null };
  } catch (error) {
    return { error: (error as { code?: string }).code ?? String(error) };
  }
}
