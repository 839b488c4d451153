/**
 * The spilled positions a window record marks (SpilledHistory.spilledPositions): one set from a
 * window to the next while nothing new is spilled — not a new set of every spilled message per
 * window, which at 10k messages with hundreds spilled was a per-turn O(spilled) cost of recall's
 * turn (issue 30) — and a new one, with the new position, after a spill or a replaced history.
 */
import { describe, expect, it } from "vitest";
import { SpilledHistory } from "../../modules/context-manager/spilled-history.js";
import { spillOptionsSchema } from "../../modules/context-manager/context-options.js";
import { MemoryBlobStore } from "../../modules/store-blobs/index.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { WindowAssembler } from "../../modules/window/window-assembler.js";
import { bigLog, toolRound } from "./spill-fixtures.js";

describe("spilled positions", () => {
  it("the same set while nothing new is spilled; a new one with the new position after a spill; none after a reset", async () => {
    const assembler = new WindowAssembler();
    const spill = new SpilledHistory({ moduleName: "spill-test", options: spillOptionsSchema.parse({}), store: () => ({ blobs: new MemoryBlobStore(), keyPrefix: "" }), follower: assembler, assembler, hooks: undefined });
    const counter = getTokenCounter("gpt-4o");
    let n = 0;
    const round = (prompt: string, output: string) => {
      for (const m of toolRound(prompt, output, `call_${n}`)) spill.append({ ...m, metadata: { id: `m${++n}` } } as never);
    };
    round("Why did order ord-77123 fail?", bigLog(100_000));
    await spill.prepare(8_000, counter, false);
    const first = spill.spilledPositions();
    expect([...first!]).toEqual([2]);
    round("And now?", "all good");
    await spill.prepare(8_000, counter, false);
    expect(spill.spilledPositions()).toBe(first);
    round("Check the worker log too.", bigLog(60_000));
    await spill.prepare(8_000, counter, false);
    const second = spill.spilledPositions();
    expect(second).not.toBe(first);
    expect([...second!].sort((a, b) => a - b)).toEqual([2, 8]);
    expect(spill.spilledPositions()).toBe(second);
    spill.reset([]);
    expect(spill.spilledPositions()).toBeUndefined();
  });
});
