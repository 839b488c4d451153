import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import type { StoreUnderTest } from "./history-store-helpers.js";
import type { StoreHarness } from "./history-store-helpers.js";

/**
 * Opt-in part of the HistoryStore suite for stores that several processes share (PostgreSQL,
 * Redis): writers in other processes append to one session at the same time as this one.
 */
export interface ProcessWriterOptions {
  /**
   * Starts a writer in another process over the storage of `under` (its `storage` field says
   * where) and resolves when that process has exited successfully. The writer appends `count`
   * messages to `sessionId`, awaiting each, every one shaped
   * `{ role: "user", content: <any>, metadata: { id: "w<writer>-<seq>", writer, seq } }` with
   * seq = 0..count-1.
   */
  spawnWriter(under: StoreUnderTest, job: { sessionId: string; writer: number; count: number }): Promise<void>;
  /** Writer processes (default 4) and appends each (default 50). */
  processes?: number;
  appendsPerProcess?: number;
}

export function describeStoreProcesses(harness: StoreHarness, options: ProcessWriterOptions): void {
  const processes = options.processes ?? 4;
  const count = options.appendsPerProcess ?? 50;

  describe("several processes", () => {
    it(`${processes} writer processes and this one: nothing lost, duplicated or reordered per writer`, async () => {
      const under = await harness.makeUnderTest();
      const local = processes; // this process writes as the last writer
      const children = Array.from({ length: processes }, (_, writer) => options.spawnWriter(under, { sessionId: "shared", writer, count }));
      const mine = (async () => {
        for (let seq = 0; seq < count; seq++) {
          await under.store.append("shared", { role: "user", content: `w${local}-${seq}`, metadata: { id: `w${local}-${seq}`, writer: local, seq } });
        }
      })();
      await Promise.all([...children, mine]);

      const back = await under.store.read("shared");
      expect(back).toHaveLength((processes + 1) * count);
      expect(await under.store.count("shared")).toBe(back.length);
      expect(new Set(back.map((m) => m.metadata?.id)).size).toBe(back.length);
      for (let writer = 0; writer <= processes; writer++) {
        expect(seqsOf(back, writer), `writer ${writer}`).toEqual(Array.from({ length: count }, (_, i) => i));
      }
      // Pages cut the same list: a paginated read sees what one read sees.
      const paged: Message[] = [];
      for (let offset = 0; offset < back.length; offset += 37) paged.push(...(await under.store.read("shared", { offset, limit: 37 })));
      expect(paged.map((m) => m.metadata?.id)).toEqual(back.map((m) => m.metadata?.id));
    });
  });
}

function seqsOf(messages: Message[], writer: number): unknown[] {
  return messages.filter((m) => m.metadata?.writer === writer).map((m) => m.metadata?.seq);
}
