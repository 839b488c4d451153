/**
 * Packing (cold-history.ts) is the session's idle work (issue 31): it runs only while no call of
 * the context manager is in flight — never inside an awaited store write —, it stops with close()
 * (the session's cleanup), and it runs under a strategies pipeline too, whose windows stay those
 * of an unpacked history.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { Coordinator } from "../../core/coordinator.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";
import { mount as mountSimple } from "../../modules/context-simple/index.js";
import { MemoryStore } from "../../modules/stores/memory-store.js";
import { generateHistory } from "../bench/history-generator.js";

const PACKING = { hotTail: 4, blockSize: 2 };
const POOL = generateHistory({ count: 240, seed: 31, idPrefix: "k" });
const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
/** Immediates pending in this process (Node's own count of its active resources). */
const immediates = () => process.getActiveResourcesInfo().filter((r) => r === "Immediate").length;
/** Lets the event loop run `n` turns (each a check phase, where packing slices run). */
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("packing is owned by the session (issue 31)", () => {
  it("close() cancels the scheduled slice: nothing is left pending, nothing is packed afterwards", async () => {
    const context = new HistoryContextManager({ moduleName: "packing-test", coldHistory: PACKING });
    const cold = context.coldHistory!;
    const before = immediates();
    await context.setMessages(POOL);
    // Due after the rewrite, scheduled once the call ended; nothing packed inside the call.
    expect(cold.scheduled).toBe(true);
    expect(cold.packed).toBe(0);
    expect(immediates()).toBe(before + 1);
    await context.close();
    expect(cold.scheduled).toBe(false);
    expect(immediates()).toBe(before);
    await turns(20);
    expect(cold.packed).toBe(0);
    expect(cold.scheduled).toBe(false);
    // idle() does not wait for work that will never run.
    await cold.idle();
  });

  it("close() in the middle of the packing stops it there", async () => {
    const context = new HistoryContextManager({ moduleName: "packing-test", coldHistory: { hotTail: 4, blockSize: 1 } });
    const cold = context.coldHistory!;
    await context.setMessages(POOL);
    // Let a few slices run (each packs up to a couple of ms of blocks), then close.
    while (cold.packed === 0) await turns(1);
    await context.close();
    const packed = cold.packed;
    await turns(20);
    expect(cold.packed).toBe(packed);
    expect(cold.scheduled).toBe(false);
  });

  it("the session's cleanup closes it: context-simple and context-persistent leave no packing behind", async () => {
    const dir = await mkdtemp(join(tmpdir(), "packing-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    for (const mount of [
      (c: Coordinator) => mountSimple(c),
      (c: Coordinator) => mountPersistent(c, { storagePath: dir, fsync: "never" }),
    ]) {
      const coordinator = new Coordinator({ sessionId: `packing-${immediates()}` });
      const context = await mount(coordinator);
      // The default sizes (a hot tail of 4,096): a history long enough for blocks to be due.
      await context.setMessages(manyMessages(4_096 + 256));
      expect(context.coldHistory?.scheduled).toBe(true);
      await coordinator.cleanup();
      expect(context.coldHistory?.scheduled).toBe(false);
      const packed = context.coldHistory!.packed;
      await turns(10);
      expect(context.coldHistory!.packed).toBe(packed);
    }
  });

  it("a write never awaits packing: no slice runs while addMessage is in flight, even across the store's awaits", async () => {
    const store = new MemoryStore();
    const context = new HistoryContextManager({ moduleName: "packing-test", coldHistory: PACKING, store, sessionId: "s" });
    cleanups.push(() => context.close());
    const cold = context.coldHistory!;
    const duringWrites: number[] = [];
    const append = store.append.bind(store);
    // A store whose append yields to the event loop several times, as a file or a socket write does.
    store.append = async (sessionId, message, scope) => {
      const at = cold.packed;
      await turns(5);
      await append(sessionId, message, scope);
      await turns(5);
      duringWrites.push(cold.packed - at);
    };
    await context.setMessages(POOL.slice(0, 120));
    expect(cold.scheduled).toBe(true);
    for (const m of POOL.slice(120, 160)) {
      await context.addMessage({ ...m, metadata: { ...m.metadata, id: `w-${m.metadata?.id}` } } as Message);
      await context.getMessagesForRequest(6_000);
    }
    expect(duringWrites).toHaveLength(40);
    expect(duringWrites.every((packed) => packed === 0)).toBe(true);
    // Between calls it does run.
    await cold.idle();
    expect(cold.packed).toBeGreaterThan(0);
  });

  it("runs under a strategies pipeline: token-budget over packed messages gives the windows and records of an unpacked history", async () => {
    const strategies = [{ use: "token-budget", budget: 5_000, strategies: [{ use: "tool-result-compaction", maxChars: 300 }, { use: "sliding-window", maxMessages: 30 }] }];
    const packed = new HistoryContextManager({ moduleName: "packing-test", options: { strategies } as never, coldHistory: PACKING });
    const reference = new HistoryContextManager({ moduleName: "packing-test", options: { strategies } as never, coldHistory: false });
    cleanups.push(() => packed.close(), () => reference.close());
    await packed.setMessages(POOL.slice(0, 100));
    await reference.setMessages(POOL.slice(0, 100));
    const records = (c: HistoryContextManager) => c.windowRecords().map(({ at: _at, ...rest }) => json(rest));
    for (const [i, m] of POOL.slice(100).entries()) {
      const message = { ...m, metadata: { ...m.metadata, id: `p-${i}` } } as Message;
      await packed.addMessage(message);
      await reference.addMessage(message);
      const budget = i % 3 === 0 ? 4_000 : 9_000;
      expect(json(await packed.getMessagesForRequest(budget))).toEqual(json(await reference.getMessagesForRequest(budget)));
      await packed.coldHistory!.idle();
    }
    expect(records(packed)).toEqual(records(reference));
    expect(json(await packed.getMessages())).toEqual(json(await reference.getMessages()));
    // Most of what lies behind the window was packed.
    expect(packed.coldHistory!.packed).toBeGreaterThan(50);
  });
});

/** `n` messages of simple user/assistant turns (fresh ids). */
function manyMessages(n: number): Message[] {
  const out: Message[] = [{ role: "system", content: "You are terse." }];
  for (let i = 0; out.length < n; i++) {
    out.push({ role: "user", content: `question ${i}` }, { role: "assistant", content: `answer ${i}` });
  }
  return out;
}
