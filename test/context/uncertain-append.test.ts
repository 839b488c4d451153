/**
 * A context manager over a store whose append outcome is unknown (STORAGE_WRITE_UNCERTAIN, issue
 * 25 item 4): the caller is told, the message is not in the live history, a retry of it is safe
 * (stored once), and any other write first completes it — so the live history and the store agree.
 */
import { describe, expect, it } from "vitest";
import type { HistoryScope, HistoryStore, Message } from "../../contracts/index.js";
import { createError } from "../../contracts/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { MemoryStore } from "../../src/modules/stores.js";

/** A memory store whose next `lose` appends end unknown: `stored` — the write happened, the reply was lost — or not. */
function doubtfulStore(): { store: HistoryStore; memory: MemoryStore; loseNext(count: number, stored: boolean): void; loseNextReplace(stored: boolean): void } {
  const memory = new MemoryStore();
  let lose = 0;
  let applied = true;
  let loseReplace: boolean | undefined;
  const store: HistoryStore = Object.assign(Object.create(memory) as HistoryStore, {
    async replace(sessionId: string, messages: Message[], scope?: HistoryScope) {
      const lost = loseReplace;
      loseReplace = undefined;
      if (lost !== false) await memory.replace(sessionId, messages, scope);
      if (lost !== undefined) throw createError("STORAGE_WRITE_UNCERTAIN", "the reply was lost", { module: "test", messageIds: [] });
    },
    async append(sessionId: string, message: Message, scope?: HistoryScope) {
      if (lose > 0) {
        lose--;
        if (applied) await memory.append(sessionId, message, scope);
        throw createError("STORAGE_WRITE_UNCERTAIN", "the reply was lost", { module: "test", messageIds: [String(message.metadata?.id)] });
      }
      await memory.append(sessionId, message, scope);
    },
  });
  return { store, memory, loseNext: (count, stored) => ((lose = count), (applied = stored)), loseNextReplace: (stored) => void (loseReplace = stored) };
}

const contents = (messages: Message[]) => messages.map((m) => m.content);

describe("an append whose outcome is unknown", () => {
  it("rejects with STORAGE_WRITE_UNCERTAIN, leaves the live history as it was, and a retry of the same message stores it once", async () => {
    const { store, memory, loseNext } = doubtfulStore();
    const ctx = new HistoryContextManager({ moduleName: "context-persistent", store, sessionId: "s" });
    await ctx.addMessage({ role: "user", content: "one" });
    const two: Message = { role: "user", content: "two" }; // no id: the manager makes one up
    loseNext(1, true);
    await expect(ctx.addMessage(two)).rejects.toMatchObject({ code: "STORAGE_WRITE_UNCERTAIN" });
    expect(contents(await ctx.getMessages())).toEqual(["one"]);
    expect(contents(await memory.read("s"))).toEqual(["one", "two"]); // it was stored after all
    await ctx.addMessage(two); // the caller's retry, as the error advises
    await ctx.addMessage({ role: "user", content: "three" });
    expect(contents(await memory.read("s"))).toEqual(["one", "two", "three"]);
    expect(contents(await ctx.getMessages())).toEqual(["one", "two", "three"]);
    const [, stored] = await memory.read("s");
    expect((await ctx.getMessages())[1]!.metadata?.id).toBe(stored!.metadata?.id);
  });

  it("a retry after an outcome that was in fact 'not stored' stores it once too; a retry that is uncertain again keeps the doubt", async () => {
    const { store, memory, loseNext } = doubtfulStore();
    const ctx = new HistoryContextManager({ moduleName: "context-persistent", store, sessionId: "s" });
    const one: Message = { role: "user", content: "one", metadata: { id: "caller-id" } };
    loseNext(2, false);
    await expect(ctx.addMessage(one)).rejects.toMatchObject({ code: "STORAGE_WRITE_UNCERTAIN" });
    await expect(ctx.addMessage(one)).rejects.toMatchObject({ code: "STORAGE_WRITE_UNCERTAIN" });
    await ctx.addMessage(one);
    expect(contents(await memory.read("s"))).toEqual(["one"]);
    expect(contents(await ctx.getMessages())).toEqual(["one"]);
  });

  it("another message added instead completes the doubted one first: live history and store agree, nothing twice (a late retry included)", async () => {
    const { store, memory, loseNext } = doubtfulStore();
    const ctx = new HistoryContextManager({ moduleName: "context-persistent", store, sessionId: "s" });
    for (const stored of [true, false]) {
      await ctx.clear();
      loseNext(1, stored);
      const doubted: Message = { role: "user", content: "doubted" };
      await expect(ctx.addMessage(doubted)).rejects.toMatchObject({ code: "STORAGE_WRITE_UNCERTAIN" });
      await ctx.addMessage({ role: "assistant", content: "next" });
      expect(contents(await memory.read("s")), `first try stored: ${stored}`).toEqual(["doubted", "next"]);
      expect(contents(await ctx.getMessages())).toEqual(["doubted", "next"]);
      await ctx.addMessage(doubted); // a late retry of the completed message: a no-op, in the store and in the history
      expect(contents(await memory.read("s"))).toEqual(["doubted", "next"]);
      expect(contents(await ctx.getMessages())).toEqual(["doubted", "next"]);
    }
  });

  it("a setMessages whose outcome is unknown is done again before the next addMessage: history and store agree", async () => {
    for (const stored of [true, false]) {
      const { store, memory, loseNextReplace } = doubtfulStore();
      const ctx = new HistoryContextManager({ moduleName: "context-persistent", store, sessionId: "s" });
      await ctx.addMessage({ role: "user", content: "old" });
      loseNextReplace(stored);
      await expect(ctx.setMessages([{ role: "user", content: "new" }])).rejects.toMatchObject({ code: "STORAGE_WRITE_UNCERTAIN" });
      expect(contents(await ctx.getMessages())).toEqual(["old"]); // not adopted while unknown
      await ctx.addMessage({ role: "assistant", content: "next" });
      expect(contents(await memory.read("s")), `first try stored: ${stored}`).toEqual(["new", "next"]);
      expect(contents(await ctx.getMessages())).toEqual(["new", "next"]);
    }
  });

  it("setMessages after an unknown outcome defines the history: the doubted message does not come back", async () => {
    const { store, memory, loseNext } = doubtfulStore();
    const ctx = new HistoryContextManager({ moduleName: "context-persistent", store, sessionId: "s" });
    loseNext(1, true);
    await expect(ctx.addMessage({ role: "user", content: "doubted" })).rejects.toMatchObject({ code: "STORAGE_WRITE_UNCERTAIN" });
    await ctx.setMessages([{ role: "user", content: "fresh start" }]);
    await ctx.addMessage({ role: "assistant", content: "ok" });
    expect(contents(await memory.read("s"))).toEqual(["fresh start", "ok"]);
    expect(contents(await ctx.getMessages())).toEqual(["fresh start", "ok"]);
  });
});
