import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { EMBEDDER_CAPABILITY, type Embedder } from "../../contracts/search.js";
import { Coordinator } from "../../core/coordinator.js";
import { type Session } from "../../core/session.js";
import { createSession } from "../../src/session/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { mount as mountSimple } from "../../modules/context-simple/index.js";

let dir: string;
const sessions: Session[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "amplifier-search-"));
});
afterEach(async () => {
  await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

async function open(module: "context-simple" | "context-persistent", sessionId = "s1"): Promise<HistoryContextManager> {
  const config = module === "context-persistent" ? { storagePath: dir, sessionId } : {};
  const session = await createSession({ session: { context: { module, config } } });
  sessions.push(session);
  return session.context as HistoryContextManager;
}

const user = (content: string, metadata: Message["metadata"] = {}): Message => ({ role: "user", content, metadata });

for (const module of ["context-simple", "context-persistent"] as const) {
  describe(`${module}: context.search`, () => {
    it("finds messages added with addMessage, as copies with stored positions and ids", async () => {
      const context = await open(module);
      await context.addMessage(user("the staging database is on port 5433", { id: "db" }));
      await context.addMessage({ role: "assistant", content: "noted" });
      const [hit] = await context.search("staging port");
      expect(hit).toMatchObject({ id: "db", index: 0, message: { role: "user", content: "the staging database is on port 5433" } });
      const stored = await context.getMessages();
      expect(hit!.message).toEqual(stored[0]);
      (hit!.message as { content: string }).content = "changed";
      expect((await context.getMessages())[0]!.content).toBe("the staging database is on port 5433");
    });

    it("respects clear, clearRun and setMessages", async () => {
      const context = await open(module);
      await context.addMessage(user("mango in run a", { id: "a1", runId: "a" }));
      await context.addMessage(user("mango in run b", { id: "b1", runId: "b" }));
      expect((await context.search("mango")).map((h) => h.id).sort()).toEqual(["a1", "b1"]);
      await context.clearRun("b");
      expect((await context.search("mango")).map((h) => h.id)).toEqual(["a1"]);
      await context.setMessages([user("papaya only", { id: "p" })]);
      expect(await context.search("mango")).toEqual([]);
      expect((await context.search("papaya"))[0]).toMatchObject({ id: "p", index: 0 });
      await context.clear();
      expect(await context.search("papaya")).toEqual([]);
      await context.addMessage(user("kiwi after clear", { id: "k" }));
      expect((await context.search("kiwi"))[0]).toMatchObject({ id: "k", index: 0 });
    });
  });
}

describe("context-persistent: search survives resume", () => {
  it("a reopened session finds the messages written before close", async () => {
    const first = await open("context-persistent", "resume");
    for (let i = 0; i < 50; i++) await first.addMessage(user(`filler message ${i}`));
    await first.addMessage(user("the launch code is ZEBRA-42", { id: "code" }));
    await sessions.pop()!.close();
    const second = await open("context-persistent", "resume");
    expect((await second.search("launch code"))[0]).toMatchObject({ id: "code", index: 50 });
    await second.addMessage(user("and the backup code is OKAPI-7", { id: "backup" }));
    expect((await second.search("backup code"))[0]!.id).toBe("backup");
  });
});

describe("context-persistent: recall survives resume", () => {
  it("a reopened session's first window recalls an old fact for the prompt", async () => {
    const open2 = async () => {
      const session = await createSession({ session: { context: { module: "context-persistent", config: { storagePath: dir, sessionId: "recall", strategies: [{ use: "recall" }] } } } });
      sessions.push(session);
      return session.context as HistoryContextManager;
    };
    const first = await open2();
    await first.addMessage(user("my locker code is 4471", { id: "fact" }));
    await first.addMessage({ role: "assistant", content: "noted", metadata: { id: "noted" } });
    for (let i = 0; i < 60; i++) await first.addMessage({ role: i % 2 ? "assistant" : "user", content: `routine step ${i} of the daily chore list, nothing else to report` });
    await sessions.pop()!.close();
    const second = await open2();
    await second.addMessage(user("what is my locker code?", { id: "prompt" }));
    const window = await second.getMessagesForRequest(700);
    expect(window.slice(0, 2).map((m) => m.metadata?.id)).toEqual(["fact", "noted"]);
    expect(window[0]!.metadata!.recalled).toBe(true);
    expect(window.at(-1)!.metadata!.id).toBe("prompt");
    expect(window.length).toBeLessThan(40); // the history (63 messages) does not fit: recall chose
  });
});

describe("embedder reaches the context module", () => {
  const embedder: Embedder = { name: "toy", dimensions: 1, embed: async (texts) => texts.map((t) => Float32Array.from([/vehicle|automobile/.test(t) ? 1 : -1])) };

  it("through the coordinator capability \"embedder\" at mount: hybrid ranking finds a semantic-only match", async () => {
    const coordinator = new Coordinator();
    coordinator.registerCapability(EMBEDDER_CAPABILITY, embedder);
    const context = await mountSimple(coordinator, {});
    await context.addMessage(user("my automobile broke down", { id: "car" }));
    await context.addMessage(user("lunch", { id: "lunch" }));
    expect((await context.search("vehicle"))[0]!.id).toBe("car");
    await coordinator.cleanup();
  });

  it("through HistoryContextManager init; without an embedder search is lexical only", async () => {
    const withEmbedder = new HistoryContextManager({ moduleName: "t", embedder });
    const without = new HistoryContextManager({ moduleName: "t" });
    for (const c of [withEmbedder, without]) await c.addMessage(user("my automobile broke down", { id: "car" }));
    expect((await withEmbedder.search("vehicle")).map((h) => h.id)).toEqual(["car"]);
    expect(await without.search("vehicle")).toEqual([]);
  });

  it("a capability that is not an Embedder is a typed error at mount", async () => {
    const coordinator = new Coordinator();
    coordinator.registerCapability(EMBEDDER_CAPABILITY, { name: "broken" });
    await expect(mountSimple(coordinator, {})).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("embedder") });
    await coordinator.cleanup();
  });
});
