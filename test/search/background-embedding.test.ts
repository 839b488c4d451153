import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Embedder, Message } from "../../contracts/index.js";
import { EMBEDDER_CAPABILITY } from "../../contracts/search.js";
import { HistoryContextManager } from "../../modules/context-manager/index.js";
import { Coordinator } from "../../core/coordinator.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";

/**
 * Issue 30: vectors are computed off the turn's path, used as they become ready, and kept with
 * the session so a resume embeds nothing. The embedders here are fakes: a "concept" embedder (one
 * dimension per topic, so a query finds a message that shares no word with it) whose embed() calls
 * are counted and — for the slow one — answered only when the test says so.
 */
const TOPICS = [/automobile|vehicle|car\b/i, /pizza|meal|dinner/i, /guitar|music/i];
const vectorOf = (text: string) => Float32Array.from([...TOPICS.map((t): number => (t.test(text) ? 1 : 0)), 0.05]);

interface Counted extends Embedder {
  calls: string[][];
}

function conceptEmbedder(name = "concept"): Counted {
  const calls: string[][] = [];
  return { name, dimensions: TOPICS.length + 1, calls, embed: async (texts) => (calls.push(texts), texts.map(vectorOf)) };
}

/** An embedder whose every call waits until release() — a deferred promise per call. */
function slowEmbedder(): Counted & { waiting: number; release(): void } {
  const calls: string[][] = [];
  const gates: (() => void)[] = [];
  return {
    name: "concept",
    dimensions: TOPICS.length + 1,
    calls,
    get waiting() {
      return gates.length;
    },
    release() {
      for (const open of gates.splice(0)) open();
    },
    embed(texts) {
      calls.push(texts);
      return new Promise((resolve) => gates.push(() => resolve(texts.map(vectorOf))));
    },
  };
}

const user = (content: string, id: string): Message => ({ role: "user", content, metadata: { id } });
const assistant = (content: string, id: string): Message => ({ role: "assistant", content, metadata: { id } });

/** A settled-or-not probe without timing: a promise's state after the event loop has run everything that was ready. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  return settled;
}

function history(n: number): Message[] {
  const out: Message[] = [user("I drive an old automobile to work every day", "car"), assistant("Noted: you commute by automobile.", "car-ack")];
  for (let i = 0; i < n; i++) out.push(i % 2 === 0 ? user(`status update number ${i} about the quarterly report`, `u${i}`) : assistant(`thanks for update ${i}`, `a${i}`));
  return out;
}

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("background embedding (issue 30)", () => {
  it("a turn does not await embedding: the window is built while every embed() call is still pending", async () => {
    const embedder = slowEmbedder();
    const context = new HistoryContextManager({ moduleName: "t", embedder, options: { strategies: [{ use: "recall" }] } });
    for (const m of history(40)) await context.addMessage(m);
    await context.addMessage(user("which vehicle do I take to the office?", "q"));
    expect(embedder.waiting).toBeGreaterThan(0); // the background embedding started, and is held

    const window = await context.getMessagesForRequest(400, undefined);
    expect(window.at(-1)?.metadata?.id).toBe("q");
    expect(embedder.waiting).toBeGreaterThan(0); // still held: the window did not wait for it

    const ready = context.indexReady();
    expect(await settledYet(ready)).toBe(false);
    while (!(await settledYet(ready))) embedder.release();
    await ready;
    // Now every message has its vector: "vehicle" finds the automobile message that shares no word with
    // it (an explicit search embeds its query and waits for it: released too).
    const hits = context.search("vehicle", { k: 1, before: "q" });
    while (!(await settledYet(hits))) embedder.release();
    expect((await hits)[0]?.id).toBe("car");
  });

  it("indexReady() resolves once every stored message is embedded, and embeds each text once", async () => {
    const embedder = conceptEmbedder();
    const messages = history(100);
    const context = new HistoryContextManager({ moduleName: "t", embedder, initialMessages: messages });
    await context.indexReady();
    const embedded = new Set(embedder.calls.flat());
    for (const m of messages) expect(embedded.has(m.content as string), m.metadata?.id as string).toBe(true);
    const calls = embedder.calls.length;
    await context.indexReady();
    await context.setMessages(await context.getMessages()); // same texts: their vectors are reused
    await context.indexReady();
    expect(embedder.calls.length).toBe(calls);
    expect(context.searchIndex.vectorStats?.reused).toBeGreaterThan(0);
  });

  it("the turn's path uses the query's vector once it is known (the newest prompt's query is embedded with it)", async () => {
    const embedder = conceptEmbedder();
    const context = new HistoryContextManager({ moduleName: "t", embedder, options: { strategies: [{ use: "recall" }] } });
    for (const m of history(200)) await context.addMessage(m);
    await context.addMessage(user("which vehicle do I take to the office?", "q"));
    await context.indexReady();
    const callsBefore = embedder.calls.length;
    const window = await context.getMessagesForRequest(300, undefined);
    expect(window.map((m) => m.metadata?.id)).toContain("car");
    expect(embedder.calls.length).toBe(callsBefore); // the window embedded nothing
  });

  it("context-persistent keeps the vectors beside the session: a resume with stored vectors embeds nothing", async () => {
    const storagePath = await mkdtemp(join(tmpdir(), "amplifier-vectors-"));
    dirs.push(storagePath);
    const open = async (embedder: Embedder) => {
      const coordinator = new Coordinator();
      coordinator.registerCapability(EMBEDDER_CAPABILITY, embedder);
      const context = await mountPersistent(coordinator, { storagePath, sessionId: "s1", strategies: [{ use: "recall" }] });
      return { coordinator, context };
    };

    const first = conceptEmbedder();
    const a = await open(first);
    for (const m of history(300)) await a.context.addMessage(m);
    await a.context.addMessage(user("which vehicle do I take to the office?", "q"));
    await a.context.indexReady();
    expect(first.calls.flat().length).toBeGreaterThanOrEqual(303);
    await a.coordinator.cleanup();
    const files = (await readdir(storagePath, { recursive: true })).map(String);
    expect(files.some((f) => /s1\.vectors-0\.json$/.test(f)), files.join(", ")).toBe(true);

    const second = conceptEmbedder();
    const b = await open(second);
    await b.context.indexReady();
    expect(second.calls).toEqual([]); // nothing embedded again
    const window = await b.context.getMessagesForRequest(300, undefined);
    expect(window.map((m) => m.metadata?.id)).toContain("car");
    expect(second.calls).toEqual([]);
    // A new message is embedded (only it) and kept too.
    await b.context.addMessage(user("and what did I say about dinner?", "q2"));
    await b.context.indexReady();
    expect(second.calls.flat()).toContain("and what did I say about dinner?");
    expect(second.calls.flat().length).toBeLessThanOrEqual(2); // the message, and its question clauses when they differ
    await b.coordinator.cleanup();

    // Another embedder (another name): the stored vectors are not its vectors — everything is embedded again.
    const other = conceptEmbedder("another-model");
    const c = await open(other);
    await c.context.indexReady();
    expect(other.calls.flat().length).toBeGreaterThanOrEqual(304);
    await c.coordinator.cleanup();
  });

  it("an embedder that fails: windows go on lexically, indexReady() rejects with its error, and a later call retries", async () => {
    let fail = true;
    const calls: string[][] = [];
    const embedder: Embedder = {
      name: "flaky",
      embed: async (texts) => {
        calls.push(texts);
        if (fail) throw new Error("model not loaded");
        return texts.map(vectorOf);
      },
    };
    const context = new HistoryContextManager({ moduleName: "t", embedder, options: { strategies: [{ use: "recall" }] } });
    for (const m of history(10)) await context.addMessage(m);
    await expect(context.indexReady()).rejects.toThrow("model not loaded");
    expect((await context.getMessagesForRequest(2_000, undefined)).length).toBeGreaterThan(0);
    fail = false;
    await context.indexReady();
    expect((await context.search("vehicle", { k: 1 }))[0]?.id).toBe("car");
  });
});
