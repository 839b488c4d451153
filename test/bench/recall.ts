/**
 * Scenario `recall` (issue 7, sizes: issue 20):
 *  (a) the agent-loop turn (addMessage + getMessagesForRequest) at each history size of the run
 *      (1,000 / 10,000 / 100,000; --quick: 1,000 / 10,000) with recall in the pipeline, at the
 *      run's budget (128,000) and at 8,000 tokens (where recall has to choose); every model-call
 *      window checked afterwards. Targets: ≤ 5 ms per turn (median) at 10,000 (issue 7); flat —
 *      t(largest)/t(1,000) of medians ≤ 1.5 — and, reported, the pipelines' median ≤ 0.3 ms and
 *      p95 ≤ 1 ms at 10,000 (issue 20).
 *  (b) the search index on resume: a context opened on N = 10,000 / bigCount stored messages
 *      does not wait for its search index: it is built in the background (25 ms time slices).
 *      Measured: the first window with recall, when the index is ready, the longest the event loop was
 *      blocked meanwhile (a setImmediate probe), and the next window.
 */
import type { Message } from "../../contracts/generated/message.js";
import type { Embedder } from "../../contracts/index.js";
import { Coordinator } from "../../core/coordinator.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { mount as mountSimple } from "../../modules/context-simple/index.js";
import { historyFor, isModelCall, turnMessages } from "./agent-loop-turn.js";
import { FLAT_RATIO } from "./agent-loop-turn.js";
import { count, distribution, fullGc, ms, ratio } from "./measure.js";
import { GENERATED_HISTORY, check, type BenchContext, type Scenario, type ScenarioResult } from "./scenario.js";
import { checkWindowsAt } from "./tool-pairing.js";

const TURN_TARGET_MS = 5;
/** Issue 20's targets for every pipeline's turn at 10,000 messages (reported, as in the pipelines scenario). */
const PIPELINE_MEDIAN_MS = 0.3;
const PIPELINE_P95_MS = 1;
const PIPELINES: { label: string; strategies: { use: string; [k: string]: unknown }[]; embedder?: boolean }[] = [
  { label: "[recall]", strategies: [{ use: "recall" }] },
  // Ranking over stored vectors (issue 30): a deterministic hash embedder, so the row measures the ranking, not a model.
  { label: "[recall] + embedder (hash, 512 dims, vectors stored)", strategies: [{ use: "recall" }], embedder: true },
  { label: "[tool-result-compaction, recall]", strategies: [{ use: "tool-result-compaction", maxChars: 2000 }, { use: "recall" }] },
];

let seq = 0;

/** A deterministic fake embedder: each word adds ±1 to a dimension picked by its hash (FNV-1a). Cheap, so the turn's cost is the ranking's. */
export function hashEmbedder(dims = 512): Embedder {
  const hash = (w: string) => {
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
    return h >>> 0;
  };
  return {
    name: `hash-${dims}`,
    dimensions: dims,
    embed: async (texts) =>
      texts.map((t) => {
        const v = new Float32Array(dims);
        for (const w of t.toLowerCase().split(/[^a-z0-9]+/)) if (w !== "") v[hash(w) % dims]! += hash(w) & 1024 ? 1 : -1;
        return v;
      }),
  };
}

async function turns(ctx: BenchContext, n: number, budget: number, strategies: { use: string; [k: string]: unknown }[], embedder = false) {
  const history = historyFor(ctx, n);
  const stream = turnMessages(ctx, `recall${++seq}`);
  const counter = getTokenCounter("gpt-4o");
  fullGc();
  const coordinator = new Coordinator({ sessionId: `bench-recall-${process.pid}-${seq}` });
  if (embedder) coordinator.registerCapability("embedder", hashEmbedder());
  const context = await mountSimple(coordinator, { strategies });
  try {
    await context.setMessages(history);
    // The index of a replaced history is built in the background (see (b)); the turns measure the steady state.
    // With an embedder, every stored message is embedded first: the turns rank over stored vectors.
    const f0 = performance.now();
    if (embedder) await context.indexReady();
    else await context.searchIndex.catchUp();
    const indexMs = performance.now() - f0;
    await context.getMessagesForRequest(budget);
    const times: number[] = [];
    const toCheck: { at: number; window: Message[] }[] = [];
    let recalledWindows = 0;
    for (let i = 0; i < stream.length; i++) {
      const t0 = performance.now();
      await context.addMessage(stream[i]!);
      const window = await context.getMessagesForRequest(budget);
      const t1 = performance.now();
      if (i < ctx.options.warmup) continue;
      times.push(t1 - t0);
      if (window.some((m) => m.metadata?.recalled === true)) recalledWindows++;
      if (isModelCall(stream, i)) toCheck.push({ at: i, window });
    }
    const { invalid, firstProblem } = checkWindowsAt(history, stream, toCheck, budget, counter);
    return { indexMs, stored: history.length, ...distribution(times), invalid, checked: toCheck.length, recalledWindows, measured: times.length, firstProblem };
  } finally {
    await coordinator.cleanup();
  }
}

async function resume(ctx: BenchContext, n: number, budget: number) {
  const history = historyFor(ctx, n).map((m) => Object.freeze({ ...m }) as Message);
  fullGc();
  const context = new HistoryContextManager({ moduleName: "context-simple", options: { strategies: [{ use: "recall" }] }, initialMessages: history.slice() });
  let longestGap = 0;
  let probing = true;
  const probe = (async () => {
    let last = performance.now();
    while (probing) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }
  })();
  const t0 = performance.now();
  const first = await context.getMessagesForRequest(budget);
  const firstMs = performance.now() - t0;
  const firstRecalled = first.some((m) => m.metadata?.recalled === true);
  // Meanwhile the index is built in the background, in time slices: how long until it is ready,
  // and the longest the event loop was held (the probe runs between slices).
  await context.searchIndex.catchUp();
  const readyMs = performance.now() - t0;
  probing = false;
  await probe;
  const t1 = performance.now();
  const next = await context.getMessagesForRequest(budget);
  const nextMs = performance.now() - t1;
  const nextRecalled = next.some((m) => m.metadata?.recalled === true);
  const plain = new HistoryContextManager({ moduleName: "context-simple", initialMessages: history.slice() });
  const t2 = performance.now();
  await plain.getMessagesForRequest(budget);
  const plainMs = performance.now() - t2;
  return { n: history.length, firstMs, firstRecalled, readyMs, longestGap, nextMs, nextRecalled, plainMs };
}

export const recallScenario: Scenario = {
  id: "recall",
  data: GENERATED_HISTORY,
  title: "Recall: turn time by history size with recall in the pipeline, index build on resume",
  method:
    "(a) As scenario 1 (same history of N messages — 1,000, 10,000, 100,000; --quick 1,000 and 10,000 — same new messages, gpt-4o counting, context-simple) with recall in `strategies`, " +
    "at the run's budget and at 8,000 tokens, and [recall] with an embedder on (a deterministic hash embedder, 512 dims, in-process: the row measures ranking over stored vectors, not a model; every stored message embedded before the turns); after setMessages the search index is built first (reported apart), then the turns are timed (median, p95, p99); model-call windows checked afterwards; " +
    "flat when t(largest N)/t(1,000) of medians ≤ 1.5 (issue 20). " +
    "(b) A context created on N stored messages (resume) with [recall]: the first window (recall does not wait: the index is built in the background " +
    "in 25 ms time slices), the time until the index is ready, the longest event-loop gap meanwhile (setImmediate probe), the next window (its first search), and the first window without strategies for reference.",
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const sizes = [...ctx.options.sizes];
    const rows: string[][] = [];
    const checks = [];
    for (const budget of [ctx.options.budget, 8_000]) {
      for (const pipeline of PIPELINES) {
        const medians = new Map<number, number>();
        for (const n of sizes) {
          ctx.log(`recall: turn at N=${count(n)}, budget ${count(budget)}, ${pipeline.label}`);
          const f = await turns(ctx, n, budget, pipeline.strategies, pipeline.embedder);
          medians.set(n, f.median);
          ctx.log(`  median ${ms(f.median)}, p95 ${ms(f.p95)}, p99 ${ms(f.p99)}, index build ${ms(f.indexMs)}, ${f.recalledWindows}/${f.measured} windows with recalled messages, ${f.invalid}/${f.checked} invalid`);
          rows.push([pipeline.label, count(budget), `${count(n)} (${count(f.stored)})`, ms(f.median), ms(f.p95), ms(f.p99), ms(f.indexMs), `${f.recalledWindows}/${f.measured}`, `${f.invalid}/${f.checked}`]);
          checks.push(check(`windows valid, ${pipeline.label}, budget ${count(budget)}, N=${count(n)}`, `${f.invalid} invalid of ${f.checked}`, "0", f.invalid === 0));
          if (n !== 10_000) continue;
          checks.push(check(`turn at 10k, ${pipeline.label}, budget ${count(budget)} (median)`, ms(f.median), `≤ ${TURN_TARGET_MS} ms`, f.median <= TURN_TARGET_MS));
          checks.push(check(`turn at 10k, ${pipeline.label}, budget ${count(budget)} (median, issue 20)`, ms(f.median), `≤ ${PIPELINE_MEDIAN_MS} ms`, f.median <= PIPELINE_MEDIAN_MS));
          checks.push(check(`turn at 10k, ${pipeline.label}, budget ${count(budget)} (p95, issue 20)`, ms(f.p95), `≤ ${PIPELINE_P95_MS} ms`, f.p95 <= PIPELINE_P95_MS));
        }
        const small = sizes[0]!;
        const big = sizes[sizes.length - 1]!;
        if (big !== small) {
          const r = medians.get(big)! / medians.get(small)!;
          checks.push(check(`flat: t(${count(big)})/t(${count(small)}) of medians: ${pipeline.label}, budget ${count(budget)}`, ratio(r), `≤ ${FLAT_RATIO}×`, r <= FLAT_RATIO));
        }
      }
    }
    const resumeRows: string[][] = [];
    for (const size of [10_000, ctx.options.bigCount]) {
      ctx.log(`recall: resume of N=${count(size)}`);
      const r = await resume(ctx, size, 8_000);
      ctx.log(`  first window ${ms(r.firstMs)} (recalled: ${r.firstRecalled}), index ready after ${ms(r.readyMs)}, longest block ${ms(r.longestGap)}, next window ${ms(r.nextMs)} (recalled: ${r.nextRecalled}), without strategies ${ms(r.plainMs)}`);
      resumeRows.push([count(r.n), ms(r.firstMs), ms(r.readyMs), ms(r.longestGap), `${ms(r.nextMs)}${r.nextRecalled ? "" : " (nothing recalled)"}`, ms(r.plainMs)]);
      checks.push(check(`resume of ${count(r.n)}: first window with recall (index built in the background)`, ms(r.firstMs), "reported", undefined));
      checks.push(check(`resume of ${count(r.n)}: search index ready after`, ms(r.readyMs), "reported", undefined));
    }
    return {
      checks,
      tables: [
        { title: "Turn time by history size with recall", columns: ["pipeline", "budget", "N (exact)", "median", "p95", "p99", "index build after setMessages", "windows with recalled messages", "invalid windows"], rows },
        { title: "Resume: index built on the first search", columns: ["messages", "first window with recall (no hits yet)", "index ready after", "longest event-loop block", "next window (first search)", "first window, no strategies"], rows: resumeRows },
      ],
      notes: ["The index is never built per request: after the first search it follows addMessage in O(new messages); a replaced history (setMessages, clearRun, clear) is re-indexed on the next search."],
    };
  },
};
