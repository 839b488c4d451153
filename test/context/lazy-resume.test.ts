/**
 * A context resumed from a JSONL session with a trusted sidecar index (its messages lazy: parsed
 * when first read) behaves exactly like one given the same history eagerly: same windows at every
 * budget, same messages, same search hits, and the same after appends, a clearRun, a
 * setMessages and a second resume. Only the messages a window shows are parsed.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { isUnparsed } from "../../modules/stores/lazy-message.js";
import { JsonlStore } from "../../src/modules/stores.js";
import { generateHistory } from "../bench/history-generator.js";
import { makeTempDir } from "../stores/support.js";

const plain = (messages: readonly Message[]) => JSON.parse(JSON.stringify(messages)) as Message[];
/** Windows without the per-request ids of synthetic messages (none here) — compared as JSON. */
const json = (messages: readonly Message[]) => JSON.parse(JSON.stringify(messages)) as unknown;

describe("a lazily resumed context equals the eager one", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  const closers: (() => Promise<void>)[] = [];
  beforeEach(async () => {
    temp = await makeTempDir("lazy-resume");
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close().catch(() => undefined);
    await temp.remove();
  });

  /** The session written (with its index), then resumed by a fresh store: a lazy context and its messages. */
  async function resume(sessionId: string, write?: Message[]): Promise<{ context: HistoryContextManager; messages: Message[] }> {
    if (write) {
      const writer = new JsonlStore({ storagePath: temp.dir, fsync: "never" });
      await writer.replace(sessionId, write);
      await writer.close();
    }
    const store = new JsonlStore({ storagePath: temp.dir, fsync: "never" });
    const { messages } = await store.open(sessionId);
    const context = new HistoryContextManager({ moduleName: "lazy-resume-test", store, sessionId, initialMessages: messages });
    closers.push(() => context.close());
    return { context, messages };
  }

  function eager(history: readonly Message[]): HistoryContextManager {
    const context = new HistoryContextManager({ moduleName: "lazy-resume-test", initialMessages: plain(history) });
    closers.push(() => context.close());
    return context;
  }

  it("windows at every budget, getMessages and search; a window parses only what it shows (and what it counts to decide)", async () => {
    const history = generateHistory({ count: 600, seed: 7, idPrefix: "z" });
    const { context: lazy, messages } = await resume("s", history);
    const reference = eager(history);
    expect(messages.every(isUnparsed)).toBe(true);
    const first = await lazy.getMessagesForRequest(8_000);
    expect(json(first)).toEqual(json(await reference.getMessagesForRequest(8_000)));
    const parsed = messages.filter((m) => !isUnparsed(m)).length;
    expect(parsed).toBeGreaterThanOrEqual(first.length - 2);
    expect(parsed).toBeLessThan(messages.length / 4);
    for (const budget of [2_000, 32_000, 128_000]) {
      expect(json(await lazy.getMessagesForRequest(budget)), `budget ${budget}`).toEqual(json(await reference.getMessagesForRequest(budget)));
    }
    expect(json(await lazy.getMessages())).toEqual(json(await reference.getMessages()));
    const hits = async (c: HistoryContextManager) => (await c.search("error", { k: 5 })).map((h) => h.message.metadata?.id);
    expect(await hits(lazy)).toEqual(await hits(reference));
  });

  it("appends, clearRun and setMessages after a lazy resume, then a second resume: the same as eager throughout", async () => {
    const history = generateHistory({ count: 300, seed: 11, idPrefix: "y" }).map((m, i) => (i > 0 && i % 50 === 0 ? { ...m, metadata: { ...m.metadata, runId: "old-run" } } : m));
    const { context: lazy } = await resume("t", history);
    const reference = eager(history);
    const more = generateHistory({ count: 20, seed: 12, idPrefix: "x", withSystem: false });
    for (const m of more) {
      await lazy.addMessage(m);
      await reference.addMessage(m);
      expect(json(await lazy.getMessagesForRequest(4_000))).toEqual(json(await reference.getMessagesForRequest(4_000)));
    }
    await lazy.clearRun("old-run");
    await reference.clearRun("old-run");
    expect(json(await lazy.getMessages())).toEqual(json(await reference.getMessages()));
    const kept = await reference.getMessages();
    await lazy.close();
    const again = await resume("t");
    expect(json(await again.context.getMessages())).toEqual(json(kept));
    expect(json(await again.context.getMessagesForRequest(6_000))).toEqual(json(await reference.getMessagesForRequest(6_000)));
    await again.context.setMessages(kept.slice(0, 10));
    await again.context.close();
    const third = await resume("t");
    expect(third.messages.every(isUnparsed)).toBe(true);
    expect(json(await third.context.getMessages())).toEqual(json(kept.slice(0, 10)));
  });
});
