/**
 * Packing the messages far behind the window (cold-history.ts, held-message.ts) changes nothing
 * anyone can observe: a context that packs (tiny hot tail and blocks, so nearly everything is
 * packed) answers every call like one that keeps every message parsed — windows at any budget,
 * getMessages, search, explain, setMessages, runs and clearRun — and it really packs: messages
 * behind the window hold no parsed body, and the token caches let go of them.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { exportTokenCounts, getTokenCounter } from "../../modules/tokens/index.js";
import { ColdHistory } from "../../modules/context-manager/cold-history.js";
import { heldState } from "../../modules/context-manager/held-message.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { StoredHistory } from "../../modules/context-manager/stored-history.js";
import { WindowAssembler } from "../../modules/window/window-assembler.js";
import { generateHistory } from "../bench/history-generator.js";

const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
/** The window report without its timing. */
const report = (context: HistoryContextManager) => {
  const last = context.explainLastWindow();
  if (!last) return undefined;
  const { durationMs: _ignored, ...rest } = last.report;
  return json({ ...last, report: rest });
};

const POOL = generateHistory({ count: 400, seed: 11, idPrefix: "p", crashEvery: 40 });

type Op =
  | { kind: "append"; from: number; count: number; critical: boolean }
  | { kind: "window"; budget: number }
  | { kind: "messages" }
  | { kind: "search"; query: string }
  | { kind: "rewrite"; drop: number; keep: number }
  | { kind: "run"; id: string }
  | { kind: "clearRun"; id: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("append" as const), from: fc.nat(POOL.length - 1), count: fc.integer({ min: 1, max: 30 }), critical: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("window" as const), budget: fc.integer({ min: 1_500, max: 40_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("messages" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("search" as const), query: fc.constantFrom("error in the build", "tests", "deploy config", "why did it fail") }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("rewrite" as const), drop: fc.nat(20), keep: fc.nat(400) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("run" as const), id: fc.constantFrom("r1", "r2", "r3") }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("clearRun" as const), id: fc.constantFrom("r1", "r2", "r3") }) },
);

/** Runs `ops` on both contexts and compares every answer. */
async function compare(ops: readonly Op[], packing: { hotTail: number; blockSize: number }): Promise<number> {
  const packed = new HistoryContextManager({ moduleName: "cold-test", coldHistory: packing });
  const reference = new HistoryContextManager({ moduleName: "cold-test", coldHistory: false });
  let seq = 0;
  const both = async <T>(call: (c: HistoryContextManager) => Promise<T>): Promise<void> => {
    const outcome = async (c: HistoryContextManager) => {
      try {
        return { ok: json(await call(c)) };
      } catch (error) {
        return { error: (error as { code?: string }).code ?? String(error) };
      }
    };
    expect(await outcome(packed)).toEqual(await outcome(reference));
    // Packing runs between turns of the event loop: let it catch up before the next call.
    await packed.coldHistory!.idle();
  };
  for (const o of ops) {
    switch (o.kind) {
      case "append": {
        for (const m of POOL.slice(o.from, o.from + o.count)) {
          // A fresh id per append (the pool is reused); some messages critical.
          const critical = o.critical && m.role === "user" && seq % 7 === 0;
          const message = { ...m, metadata: { ...m.metadata, id: `a-${++seq}`, ...(critical ? { critical: true } : {}) } } as Message;
          await both((c) => c.addMessage(message));
        }
        break;
      }
      case "window":
        await both((c) => c.getMessagesForRequest(o.budget, undefined, { explain: true }));
        expect(report(packed)).toEqual(report(reference));
        break;
      case "messages":
        await both((c) => c.getMessages());
        break;
      case "search":
        await both((c) => c.search(o.query, { k: 5, neighbours: 1 }));
        break;
      case "rewrite": {
        const current = await reference.getMessages();
        const next = current.slice(Math.min(o.drop, current.length)).slice(0, o.keep);
        await both((c) => c.setMessages(next));
        break;
      }
      case "run":
        packed.startRun(o.id);
        reference.startRun(o.id);
        break;
      case "clearRun":
        await both((c) => c.clearRun(o.id));
        break;
    }
  }
  await both((c) => c.getMessages());
  await both((c) => c.getMessagesForRequest(6_000));
  // Counts carried to the next process: the packed context's are the reference's, less the packed messages'.
  const carried = (c: HistoryContextManager) => Object.values(c.carriedTokenCounts().caches).flat().map(([hash, n]) => `${hash}:${n}`);
  const reference_ = new Set(carried(reference));
  for (const pair of carried(packed)) expect(reference_.has(pair)).toBe(true);
  const count = packed.coldHistory!.packed;
  await packed.close();
  await reference.close();
  return count;
}

describe("packing cold messages (issue 20)", () => {
  it("is unobservable: random appends, windows, rewrites, runs and searches answer as without packing", async () => {
    let packedAtAll = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 5 }), async (ops, hotTail, blockSize) => {
        packedAtAll += await compare(ops, { hotTail, blockSize });
      }),
      { numRuns: 60 },
    );
    expect(packedAtAll).toBeGreaterThan(0);
  });

  it("packs what is far behind the window: no parsed body, no token cache entry; reading one parses it, the next append packs it again", async () => {
    const cold = new ColdHistory({ hotTail: 20, blockSize: 8 });
    const assembler = new WindowAssembler();
    const history = new StoredHistory({ moduleName: "cold-test", sessionId: "s", agentId: "default", retention: "permanent", store: undefined, follower: assembler, cold });
    const counter = getTokenCounter("gpt-4o");
    const source = generateHistory({ count: 300, seed: 3, idPrefix: "c" });
    for (const m of source) {
      await history.append(history.prepare(m, "message"));
      counter.countMessage(history.messages.at(-1)!);
      await cold.idle();
    }
    const stored = history.messages;
    const behind = stored.slice(0, stored.length - 20 - 8);
    const packedOnes = behind.filter((m) => heldState(m)!.body === undefined);
    // Everything behind the hot tail but the instructions and critical messages.
    expect(packedOnes.length).toBe(behind.filter((m) => m.role !== "system" && m.metadata?.critical !== true).length);
    expect(cold.packed).toBeGreaterThanOrEqual(packedOnes.length);
    for (const m of stored.slice(-20)) expect(heldState(m)!.body).toBeDefined();
    // The token caches let go of the packed ones (their entries keep the strings), not of the others.
    const pairs = (messages: Message[]) => Object.values(exportTokenCounts(messages).caches).flat().length;
    expect(pairs(packedOnes)).toBe(0);
    expect(pairs(stored.slice(-20))).toBe(20);
    // Reading one brings back an equal message, counted the same as before it was packed.
    const one = packedOnes[5]!;
    const at = stored.indexOf(one);
    expect(json(one)).toEqual(json(source[at]));
    expect(heldState(one)!.body).toBeDefined();
    expect(counter.countMessage(one)).toBe(counter.countMessage(source[at]!));
    // Still frozen for writers.
    expect(() => {
      "use strict";
      (one as { content: unknown }).content = "changed";
    }).toThrow(TypeError);
    await history.append(history.prepare({ role: "user", content: "next" }, "message"));
    await cold.idle();
    expect(heldState(one)!.body).toBeUndefined();
    // A window over the packed history equals the source's.
    const reference = new WindowAssembler(source.map((m, i) => ({ ...m, metadata: { ...stored[i]!.metadata } }) as Message).concat([stored.at(-1)!]));
    const budget = { budget: 8_000, counter };
    expect(json(assembler.assemble(budget).messages)).toEqual(json(reference.assemble(budget).messages));
  });
});

describe("reading packed messages (issue 30)", () => {
  it("inflates each block at most once per call in flight, once per visit outside one; a call's blocks go when it ends", async () => {
    const cold = new ColdHistory({ hotTail: 0, blockSize: 4 });
    const history = new StoredHistory({ moduleName: "cold-test", sessionId: "s", agentId: "default", retention: "permanent", store: undefined, follower: new WindowAssembler(), cold });
    const source = generateHistory({ count: 40, seed: 7, idPrefix: "i", withSystem: false });
    for (const m of source) await history.append(history.prepare(m, "message"));
    await cold.idle();
    const stored = history.messages;
    const [a, b] = [stored[1]!, stored[9]!];
    expect(heldState(a)!.body).toBeUndefined();
    expect(heldState(b)!.body).toBeUndefined();
    // Reads a and b alternately; after each read the history changes, which packs the parsed body away again.
    const alternate = (times: number) => {
      for (let i = 0; i < times; i++) {
        for (const m of [a, b]) {
          expect(json(m)).toEqual(json({ ...source[stored.indexOf(m)], metadata: m.metadata }));
          cold.maintain(stored);
          expect(heldState(m)!.body).toBeUndefined();
        }
      }
    };
    let before = cold.inflations;
    alternate(3);
    // Outside a call only the last block is kept: every visit to the other block inflates it.
    expect(cold.inflations - before).toBe(6);
    const done = cold.busy();
    before = cold.inflations;
    alternate(3);
    expect(cold.inflations - before).toBe(2);
    done();
    // The call ended: its blocks went (only the last one inflated stays): every visit inflates again.
    before = cold.inflations;
    alternate(2);
    expect(cold.inflations - before).toBe(4);
    await cold.close();
  });
});
