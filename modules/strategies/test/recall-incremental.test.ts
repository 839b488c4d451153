/**
 * Issue 20 for recall: its per-request state (the split, unit token counts, the output log) is
 * kept incrementally. These properties prove it equal to the from-scratch computation — the same
 * strategy with `tuning.fromScratch` (a new split, fresh counts and one pass over the whole input
 * per request: the array implementation) — at every step of random appends and rewrites (a
 * shorter history, a replaced message, a deep clone), with explain on now and then. The plan
 * itself (hysteresis, the kept hits) is state both carry, so the two must agree on it too.
 *
 * Text comes from a small vocabulary, with questions and session date headers, so that the search
 * finds hits, plans are kept and replaced, and recalled copies, neighbours and headers appear.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { propertyRuns } from "@amplifier-ts/testing";
import { toolHistoryArbitrary } from "@amplifier-ts/testing";
import { ExplainLog } from "../explain-recorder.js";
import { HistorySource } from "../message-log.js";
import { RecallStrategy, recallOptions } from "../recall.js";
import { ToolResultCompaction } from "../trimming/tool-result-compaction.js";
import { contextFor } from "./helpers.js";
import { applyHistoryOp, historyOp, type LiveHistory } from "./history-ops.js";

const runs = Math.max(40, Math.floor(propertyRuns(1_000) / 10));

const VOCABULARY = ["invoice", "gateway", "staging", "payments", "Lisbon", "Postgres", "retry", "checkout", "Maria", "deadline", "notifications", "cache"];

/** Each plain-text user/assistant message gets a few vocabulary words (a question now and then); some user messages become session headers. */
const worded = fc.tuple(toolHistoryArbitrary({ maxSteps: 60 }), fc.array(fc.tuple(fc.subarray(VOCABULARY, { minLength: 1, maxLength: 3 }), fc.integer({ min: 0, max: 9 })), { minLength: 1, maxLength: 64 })).map(([history, words]) =>
  history.map((m, i): Message => {
    if ((m.role !== "user" && m.role !== "assistant") || typeof m.content !== "string") return m;
    const [picked, kind] = words[i % words.length]!;
    if (m.role === "user" && kind === 0) return { ...m, content: `[Session ${i} · ${1 + (i % 28)} March 2024]` };
    const text = kind < 4 && m.role === "user" ? `What did we decide about ${picked.join(" and ")}?` : `About ${picked.join(", ")}: ${m.content}`;
    return { ...m, content: text };
  }),
);

const options = fc.record({
  share: fc.constantFrom(0.2, 0.4, 0.6),
  query: fc.constantFrom("last-user" as const, "last-message" as const),
  k: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
});

/** append k messages | replace the history by a shorter copy | replace one message by a copy | deep-clone the whole history | a request with explain on. */
const op = historyOp(8);

const json = (ms: readonly Message[]) => ms.map((m) => JSON.stringify(m));

describe("recall's incremental state equals the from-scratch computation (issue 20)", () => {
  it("property: compactLog over the live history = fromScratch, at every step of appends and rewrites (same messages, same `changed`, same explain)", async () => {
    await fc.assert(
      fc.asyncProperty(worded, options, fc.integer({ min: 200, max: 2_500 }), fc.boolean(), fc.array(op, { minLength: 1, maxLength: 30 }), async (full, chosen, budget, compactFirst, ops) => {
        const parsed = recallOptions.parse(chosen);
        const warm = new RecallStrategy(parsed);
        const cold = new RecallStrategy(parsed, { fromScratch: true });
        // Half the cases behind tool-result-compaction (recall reads its output log, as in a pipeline).
        const before = compactFirst ? new ToolResultCompaction({ maxChars: 200 }) : undefined;
        const history: LiveHistory = { live: [], next: 0 };
        for (const o of ops) {
          const explain = applyHistoryOp(history, full, o);
          const live = history.live;
          const warmExplain = new ExplainLog(explain);
          const coldExplain = new ExplainLog(explain);
          const input = before ? before.compactLog(new HistorySource(live), contextFor(budget, new ExplainLog(false))).output : new HistorySource(live);
          const w = await warm.compactLog(input, contextFor(budget, warmExplain));
          const c = await cold.compactLog(new HistorySource(input.items.slice()), contextFor(budget, coldExplain));
          expect(json(w.output.items)).toEqual(json(c.output.items));
          expect(w.changed).toBe(c.changed);
          expect(w.changed).toBe(w.output.items.length !== input.items.length || w.output.items.some((m, i) => m !== input.items[i]));
          if (explain) expect(warmExplain.entries).toEqual(coldExplain.entries);
        }
      }),
      { numRuns: runs },
    );
  });

  it("a history that only grows under a kept plan rewrites nothing: the output log is appended to", async () => {
    const strategy = new RecallStrategy(recallOptions.parse({}));
    const live: Message[] = [{ role: "system", content: "You are a careful agent.", metadata: { id: "s" } }];
    let version = -1;
    let rewrites = 0;
    let recalled = 0;
    for (let i = 0; i < 400; i++) {
      const topic = VOCABULARY[i % VOCABULARY.length]!;
      live.push({ role: "user", content: i % 50 === 49 ? `What did we decide about ${VOCABULARY[(i * 7) % VOCABULARY.length]}?` : `Please look at the ${topic} module, step ${i}.`, metadata: { id: `u${i}` } });
      live.push({ role: "assistant", content: `Done with ${topic} step ${i}. `.repeat(8), metadata: { id: `a${i}` } });
      const step = await strategy.compactLog(new HistorySource(live), contextFor(4_000, new ExplainLog(false)));
      const log = step.output as HistorySource & { version: number };
      if (version >= 0 && log.version !== version) rewrites++;
      version = log.version;
      if (step.output.items.some((m) => m.metadata?.recalled === true)) recalled++;
    }
    // A rewrite happens when the plan changes (a question, or the window outgrowing its plan), never per appended turn.
    expect(recalled).toBeGreaterThan(0);
    expect(rewrites).toBeLessThan(60);
  });
});
