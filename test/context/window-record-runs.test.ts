import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message, WindowRun, WindowRunDecision } from "../../contracts/index.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { StoredKinds, windowRecord, type WindowRecordInput } from "../../modules/context-manager/window-record.js";
import type { WindowReport } from "../../modules/window/index.js";

/**
 * The runs of a window record without explain, built from what the window sent and (under a
 * pipeline) the stored position of each output message — walked a range of returned positions at
 * a time (window-record.ts) — equal the decision of each stored position written out one by one.
 */
const counter = getTokenCounter("gpt-4o");

function message(i: number, kind: number): Message {
  if (kind === 0) return { role: "system", content: `instructions ${i}` };
  if (kind === 1) return { role: "user", content: `question ${i}`, metadata: { critical: true } };
  if (kind === 2) return { role: "tool", tool_call_id: `c${i}`, content: `result ${i}` };
  return { role: kind === 3 ? "user" : "assistant", content: `text ${i}` };
}

/** The decision of every stored position, one by one, run-length encoded afterwards. */
function reference(input: WindowRecordInput): WindowRun[] {
  const { history, report, pipelineOrigin, spilled } = input;
  const decided = new Map<number, WindowRunDecision>();
  const truncated = new Set(report.sentTruncated);
  for (const i of report.sentStored) {
    const at = pipelineOrigin === undefined ? i : pipelineOrigin[i];
    if (at !== undefined) decided.set(at, truncated.has(i) ? "truncated" : "kept");
  }
  const returned = pipelineOrigin === undefined ? undefined : new Set(pipelineOrigin.filter((p) => p !== undefined));
  let cut = report.cutIndex;
  if (pipelineOrigin !== undefined) {
    let next: number | undefined;
    for (let k = report.cutIndex; k < pipelineOrigin.length && next === undefined; k++) next = pipelineOrigin[k];
    cut = Math.min(history.length, next ?? history.length);
  }
  const by = input.strategies.length === 2 ? input.strategies[0]! : "pipeline";
  const runs: WindowRun[] = [];
  for (let p = 0; p < history.length; p++) {
    const m = history[p]!;
    const decision = decided.get(p);
    let row: [WindowRunDecision, string, string];
    if (decision !== undefined && spilled?.has(p)) row = ["truncated", "spill", "spilled"];
    else if (decision === "truncated") row = ["truncated", "window", m.role === "user" ? "prompt-cap" : "result-cap"];
    else if (decision === "kept") row = ["kept", "window", m.role === "system" ? "instruction" : m.metadata?.critical === true ? "critical" : "in-window"];
    else if (returned !== undefined && !returned.has(p)) row = ["dropped", by, "removed-by-pipeline"];
    else row = ["dropped", "window", p < cut ? (report.cutReason === "fits" ? "before-first-turn" : "before-cut") : report.cutReason === "ladder" ? "older-in-turn" : "orphan-result"];
    const last = runs.at(-1);
    if (last && last[1] === p && last[2] === row[0] && last[3] === row[1] && last[4] === row[2]) last[1] = p + 1;
    else runs.push([p, p + 1, ...row]);
  }
  return runs;
}

const scenario = fc
  .record({
    kinds: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 60 }),
    pipeline: fc.boolean(),
    keep: fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }),
    made: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 60, maxLength: 60 }),
    shuffle: fc.integer({ min: 0, max: 5 }),
    sendFrom: fc.nat(),
    sendAlso: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 60, maxLength: 60 }),
    truncate: fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }),
    spill: fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 60, maxLength: 60 }),
    cutAt: fc.nat(),
    cutReason: fc.constantFrom("fits", "threshold", "ladder"),
    strategies: fc.constantFrom(["tool-result-compaction", "window"], ["a", "b", "window"]),
  })
  .map((s) => {
    const history = s.kinds.map((k, i) => message(i, k));
    // The pipeline's output: the stored positions it kept, in order (or one pair swapped), and messages it made (undefined).
    let origin: Array<number | undefined> | undefined;
    if (s.pipeline) {
      origin = [];
      for (let p = 0; p < history.length; p++) {
        if (s.made[p] === 0) origin.push(undefined);
        if (s.keep[p]) origin.push(p);
      }
      if (s.shuffle === 0 && origin.length > 2) [origin[0], origin[2]] = [origin[2], origin[0]];
    }
    const outLength = origin?.length ?? history.length;
    const first = outLength === 0 ? 0 : s.sendFrom % outLength;
    const sentStored: number[] = [];
    const sentTruncated: number[] = [];
    // Sent: a few output messages before the window's start (critical ones, the prompt), then all from it on.
    for (let i = 0; i < outLength; i++) {
      if (i < first && s.sendAlso[i] !== 0) continue;
      sentStored.push(i);
      if (s.truncate[i]) sentTruncated.push(i);
    }
    const spilled = new Set(history.map((_, p) => p).filter((p) => s.spill[p] === 0));
    const report = { sentStored, sentTruncated, cutIndex: outLength === 0 ? 0 : s.cutAt % (outLength + 1), cutReason: s.cutReason } as unknown as WindowReport;
    const input: WindowRecordInput = { history, report, model: "gpt-4o", counter, tools: undefined, strategies: s.strategies, explanation: undefined, ...(origin ? { pipelineOrigin: origin } : {}), ...(spilled.size > 0 ? { spilled } : {}) };
    return input;
  });

describe("window record runs without explain", () => {
  it("equal the decision of each stored position written out one by one (with and without a pipeline, out-of-order output, made messages, spilled and truncated ones)", () => {
    // One cache of stored kinds across every case: a new history array starts it afresh.
    const kinds = new StoredKinds();
    fc.assert(
      fc.property(scenario, (input) => {
        const expected = reference(input);
        expect(windowRecord(input, []).runs).toEqual(expected);
        // Twice with the cache: filled by the first record, read by the second.
        expect(windowRecord({ ...input, kinds }, []).runs).toEqual(expected);
        expect(windowRecord({ ...input, kinds }, []).runs).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
