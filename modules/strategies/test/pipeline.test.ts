import { describe, expect, it } from "vitest";
import type { CompactionStrategy } from "@amplifier-ts/contracts";
import { CompactionPipeline } from "../pipeline.js";
import { assistant, contextFor, ids, user } from "./helpers.js";

const history = [user("a"), assistant("b"), user("c")];

describe("CompactionPipeline", () => {
  it("empty pipeline returns the history unchanged (same messages, new array)", async () => {
    const run = await new CompactionPipeline([]).run(history, contextFor());
    expect(run.messages).not.toBe(history);
    expect(run.messages).toEqual(history);
    run.messages.forEach((m, i) => expect(m).toBe(history[i]));
    expect(run.changed).toEqual([]);
  });

  it("runs strategies in order, each fed the previous output, and names those that changed something", async () => {
    const seen: string[][] = [];
    const dropFirst: CompactionStrategy = { name: "drop-first", compact: (ms) => (seen.push(ids(ms) as string[]), ms.slice(1)) };
    const same: CompactionStrategy = { name: "same", compact: (ms) => (seen.push(ids(ms) as string[]), [...ms]) };
    const run = await new CompactionPipeline([dropFirst, same]).run(history, contextFor());
    expect(seen).toEqual([ids(history), ids(history).slice(1)]);
    expect(run.changed).toEqual(["drop-first"]);
  });

  it("skips a strategy that throws or returns garbage; the others still run", async () => {
    const boom: CompactionStrategy = { name: "boom", compact: () => { throw new Error("nope"); } };
    const garbage: CompactionStrategy = { name: "garbage", compact: () => 42 as never };
    const last: CompactionStrategy = { name: "last", compact: (ms) => ms.slice(-1) };
    const run = await new CompactionPipeline([boom, garbage, last]).run(history, contextFor());
    expect(run.failed.map((f) => [f.strategy, f.index])).toEqual([["boom", 0], ["garbage", 1]]);
    expect(ids(run.messages)).toEqual(ids(history.slice(-1)));
  });

  it("never mutates its input", async () => {
    const input = Object.freeze([...history]);
    await new CompactionPipeline([{ name: "x", compact: (ms) => ms.slice(1) }]).run(input, contextFor());
    expect(input).toHaveLength(3);
  });
});

describe("output checks: built-ins trusted, third parties checked per message", () => {
  it("a registered third-party strategy returning an array with a non-message is skipped with STRATEGY_FAILED", async () => {
    const { z } = await import("zod");
    const { StrategyRegistry } = await import("../registry.js");
    const { defineStrategy } = await import("@amplifier-ts/contracts");
    const registry = new StrategyRegistry();
    registry.register(
      defineStrategy({ name: "bad-elements", description: "returns a non-message", optionsSchema: z.object({}).strict(), create: () => ({ name: "bad-elements", compact: () => [{ nope: true }] as never }) }),
    );
    const run = await registry.createPipeline([{ use: "bad-elements" }]).run(history, contextFor());
    expect(run.failed.map((f) => [f.strategy, (f.error as { code?: string }).code])).toEqual([["bad-elements", "STRATEGY_FAILED"]]);
    expect(run.messages).toEqual(history);
  });
});
