/**
 * Scenario (issue 29 §1) — background summarization: a 300-turn tool-heavy session at 128k with
 * the `summarizing` strategy in background mode and a local fake summarizer that takes 2 s per
 * call (a real delay: it runs while the turns go on). A "turn" is one model call: the messages up
 * to the next assistant message are added, the window is requested (timed), a model latency is
 * waited (real, MODEL_LATENCY_MS), then the assistant message is added as the answer.
 *
 * Figures: getMessagesForRequest p50 / p100 (target p100 ≤ 50 ms); every window checked against
 * the window invariants and the budget; the share of input tokens a simulated prompt cache serves
 * (src/replay/cache-report.ts, the simulation of `replay --cache`; OpenAI's rule for gpt-4o) —
 * target ≥ 95 %; and, per row, the tokens sent and the summarizer's tokens (in, out) so a cost
 * column (compaction's share) can be added from the same row.
 */
import type { Message, Summarizer } from "../../contracts/index.js";
import { HookBus } from "../../core/hooks/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { ExtractiveSummarizer } from "../../modules/summarizers/index.js";
import { getModelInfo, getTokenCounter } from "../../modules/tokens/index.js";
import { ReplayCache } from "../../src/replay/cache-report.js";
import { checkWindowInvariants } from "../../testing/window-invariants.js";
import { generateHistory } from "./history-generator.js";
import { count, distribution, ms, percent } from "./measure.js";
import { GENERATED_HISTORY, check, type BenchContext, type Check, type Scenario, type ScenarioResult } from "./scenario.js";

const TURNS = 300;
const WINDOW = 128_000;
const SUMMARY_DELAY_MS = 2_000;
const MODEL_LATENCY_MS = 200;
const P100_TARGET_MS = 50;
const CACHE_TARGET = 0.95;
const MODEL = "gpt-4o";

/** The configuration measured; a row per entry (another helper may add rows or columns). */
const CONFIGS: Array<{ label: string; strategy: Record<string, unknown> }> = [
  {
    label: "summarizing, background, threshold 0.8, recentRatio 0.35, prepareAt 0.6",
    strategy: { use: "summarizing", background: true, contextWindow: WINDOW, threshold: 0.8, recentRatio: 0.35, prepareAt: 0.6, summaryMaxTokens: 2_000 },
  },
];

export interface BackgroundSummaryRow {
  label: string;
  turns: number;
  /** Σ input tokens of every window sent (the simulated cache's count). */
  inputTokens: number;
  cachedTokens: number;
  hitRate: number;
  /** Σ tokens of the messages handed to the summarizer, and of the summaries it wrote. */
  summarizerInputTokens: number;
  summarizerOutputTokens: number;
  summarizerCalls: number;
  swaps: number;
  rejected: number;
  /** Why summaries were rejected (the check's reasons, in order). */
  rejectedReasons: string[];
  /** The turn whose window took longest: its window's length, whether it swapped a summary in, the characters of the messages added before it. */
  slowest: { turn: number; ms: number; messages: number; swapped: boolean; newChars: number };
  /** Turns whose window was past the threshold (0.8 × the window): no summary was ready to swap in; the assembler fitted them. */
  fallbacks: number;
  invalidWindows: number;
  p50Ms: number;
  p100Ms: number;
  /** p100 over the turns after the session's first window (its first window runs the strategy's code cold). */
  p100AfterFirstMs: number;
  durationS: number;
  /**
   * Issue 29 §2, at the model's list prices (USD): the conversation (the simulated cache's cost of
   * the windows and answers, cache writes apart), compaction (the summarizer's tokens billed as a
   * model call: in × input, out × output) and cache writes; compaction's share of their sum.
   * Undefined without prices.
   */
  spend?: { conversationUsd: number; compactionUsd: number; cacheWriteUsd: number; totalUsd: number; compactionShare: number };
}

/** A summarizer that takes SUMMARY_DELAY_MS per call (a stand-in for a model): the extractive summary, after the delay. */
function slowSummarizer(counter: { countText(text: string): number; countMessages(ms: readonly Message[]): number }, tally: { input: number; output: number; calls: number }): Summarizer {
  const inner = new ExtractiveSummarizer({ counter });
  return {
    name: "fake-2s",
    async summarize(messages, options) {
      tally.calls++;
      tally.input += counter.countMessages(messages);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, SUMMARY_DELAY_MS);
        options.signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(options.signal!.reason);
        });
      });
      const text = await inner.summarize(messages, options);
      tally.output += counter.countText(text);
      return text;
    },
  };
}

export async function runBackgroundSession(ctx: BenchContext, config: (typeof CONFIGS)[number], turns = TURNS): Promise<BackgroundSummaryRow> {
  const counter = getTokenCounter(MODEL);
  const stream = generateHistory({ count: turns * 4, seed: 2911, idPrefix: `bg${Date.now()}`, crashEvery: 0 });
  const tally = { input: 0, output: 0, calls: 0 };
  const hooks = new HookBus();
  let swaps = 0;
  let rejected = 0;
  const reasons: string[] = [];
  hooks.register("context:summary_swapped", () => void swaps++);
  hooks.register("context:summary_rejected", (e) => {
    rejected++;
    reasons.push(e.reason);
  });
  const manager = new HistoryContextManager({ moduleName: "context-simple", options: { model: MODEL, strategies: [config.strategy] as never }, hooks, summarizer: slowSummarizer(counter, tally) });
  // The tokenizer loads on a process's first count: once, before the timed session (not a window's cost).
  const warm = new HistoryContextManager({ moduleName: "context-simple", options: { model: MODEL } });
  await warm.addMessage({ role: "user", content: "warm up the tokenizer" });
  await warm.getMessagesForRequest(WINDOW);
  await warm.close();
  const cache = new ReplayCache(getModelInfo(MODEL), counter);
  const durations: number[] = [];
  let slowest = { turn: -1, ms: 0, messages: 0, swapped: false, newChars: 0 };
  let invalid = 0;
  let fallbacks = 0;
  const started = performance.now();
  let i = 0;
  let done = 0;
  try {
    while (done < turns && i < stream.length) {
      // Everything up to the next assistant message, then the model call.
      let newChars = 0;
      while (i < stream.length && (stream[i]!.role !== "assistant" || i === 0)) {
        newChars += JSON.stringify(stream[i]!.content ?? "").length;
        await manager.addMessage(stream[i++]!);
      }
      const swapsBefore = swaps;
      const answer = stream[i];
      if (!answer) break;
      const t0 = performance.now();
      const window = await manager.getMessagesForRequest(WINDOW);
      const took = performance.now() - t0;
      durations.push(took);
      if (took > slowest.ms) slowest = { turn: done, ms: took, messages: window.length, swapped: swaps > swapsBefore, newChars };
      const history = await manager.getMessages();
      if (checkWindowInvariants(history, window, { budget: WINDOW, counter }).length > 0) invalid++;
      // Past the threshold in what was sent: no summary was ready to swap in (the ladder fitted it).
      if (counter.countMessages(window) > 0.8 * WINDOW) fallbacks++;
      cache.turn(window, history, WINDOW, answer);
      await new Promise((r) => setTimeout(r, MODEL_LATENCY_MS));
      await manager.addMessage(answer);
      i++;
      done++;
    }
  } finally {
    await manager.close();
  }
  const summary = cache.summary();
  const sorted = distribution(durations);
  const prices = summary.prices;
  const perToken = (usdPerMillion: number) => usdPerMillion / 1_000_000;
  const cacheWriteUsd = prices ? summary.writeTokens * perToken(prices.cacheWrite ?? prices.input) : 0;
  const compactionUsd = prices ? tally.input * perToken(prices.input) + tally.output * perToken(prices.output) : 0;
  const conversationUsd = (summary.costUsd ?? 0) - cacheWriteUsd;
  const totalUsd = conversationUsd + compactionUsd + cacheWriteUsd;
  return {
    label: config.label,
    turns: done,
    inputTokens: summary.inputTokens,
    cachedTokens: summary.cachedTokens,
    hitRate: summary.hitRate,
    summarizerInputTokens: tally.input,
    summarizerOutputTokens: tally.output,
    summarizerCalls: tally.calls,
    swaps,
    rejected,
    rejectedReasons: reasons,
    slowest,
    fallbacks,
    invalidWindows: invalid,
    p50Ms: sorted.median,
    p100Ms: Math.max(...durations),
    p100AfterFirstMs: Math.max(...durations.slice(1)),
    durationS: (performance.now() - started) / 1000,
    ...(prices ? { spend: { conversationUsd, compactionUsd, cacheWriteUsd, totalUsd, compactionShare: totalUsd > 0 ? compactionUsd / totalUsd : 0 } } : {}),
  };
}

export const backgroundSummaryScenario: Scenario = {
  id: "background-summary",
  title: "Background summarization: 300 tool-heavy turns at 128k, a 2 s summarizer",
  method:
    `A generated tool-using session (test/bench/history-generator.ts, seed 2911), ${TURNS} model calls at a ${count(WINDOW)}-token budget, context-simple with ` +
    `\`strategies: [{ use: "summarizing", background: true, … }]\` and a fake summarizer that waits ${SUMMARY_DELAY_MS} ms (real time) then writes the extractive summary (the offline ExtractiveSummarizer). ` +
    `The tokenizer is loaded before the session (one window of a throwaway manager); the first timed window is the session's first. ` +
    `Each turn: the messages up to the next assistant message are added, getMessagesForRequest is timed, the window is checked (window invariants, budget) and sent ` +
    `through the simulated prompt cache of \`replay --cache\` (src/replay/cache-report.ts, OpenAI's rule), ${MODEL_LATENCY_MS} ms pass as the model's latency, the answer is added. ` +
    `Input tokens and the summarizer's tokens (in, out) are reported per row so compaction's share of the cost can be priced from them.`,
  data: GENERATED_HISTORY,
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const rows: BackgroundSummaryRow[] = [];
    for (const config of CONFIGS) {
      ctx.log(`  ${config.label}: ${TURNS} turns (≈ ${Math.round((TURNS * MODEL_LATENCY_MS) / 1000)} s of model latency)`);
      rows.push(await runBackgroundSession(ctx, config));
    }
    const checks: Check[] = [];
    for (const r of rows) {
      checks.push(check(`getMessagesForRequest p100, ${r.turns} turns: ${r.label}`, ms(r.p100Ms), `≤ ${P100_TARGET_MS} ms`, r.p100Ms <= P100_TARGET_MS));
      checks.push(check(`getMessagesForRequest p100 after the session's first window: ${r.label}`, ms(r.p100AfterFirstMs), "info", undefined));
      checks.push(check(`invalid or over-budget windows: ${r.label}`, `${r.invalidWindows} of ${r.turns}`, "0", r.invalidWindows === 0));
      checks.push(check(`input tokens from the simulated cache: ${r.label}`, percent(r.hitRate), `≥ ${CACHE_TARGET * 100} %`, r.hitRate >= CACHE_TARGET));
      checks.push(check(`summaries swapped in (rejected, fallback turns): ${r.label}`, `${r.swaps} (${r.rejected}, ${r.fallbacks})`, "info", undefined));
      if (r.spend) {
        const usd = (n: number) => `$${n.toFixed(2)}`;
        checks.push(check(`compaction's share of cost (${MODEL} list prices): ${r.label}`, `${percent(r.spend.compactionShare)} (compaction ${usd(r.spend.compactionUsd)}, conversation ${usd(r.spend.conversationUsd)}, cache writes ${usd(r.spend.cacheWriteUsd)})`, "reported", undefined));
      }
    }
    return {
      checks,
      tables: [
        {
          title: "Background summarization at 128k (2 s summarizer)",
          columns: ["config", "turns", "input tokens sent", "from cache", "summarizer calls", "summarizer in / out tokens", "conversation $", "compaction $", "cache writes $", "compaction share", "swaps", "rejected", "fallback turns", "window p50", "window p100", "run"],
          rows: rows.map((r) => [
            r.label,
            String(r.turns),
            count(r.inputTokens),
            percent(r.hitRate),
            String(r.summarizerCalls),
            `${count(r.summarizerInputTokens)} / ${count(r.summarizerOutputTokens)}`,
            r.spend ? r.spend.conversationUsd.toFixed(2) : "-",
            r.spend ? r.spend.compactionUsd.toFixed(2) : "-",
            r.spend ? r.spend.cacheWriteUsd.toFixed(2) : "-",
            r.spend ? percent(r.spend.compactionShare) : "-",
            String(r.swaps),
            String(r.rejected),
            String(r.fallbacks),
            ms(r.p50Ms),
            ms(r.p100Ms),
            `${r.durationS.toFixed(0)} s`,
          ]),
        },
      ],
      notes: [
        "Fallback turns: past the threshold with no summary in the window yet — the window is the history as is and the assembler's ladder fits it (the turn never waits).",
        "Tokens sent include the summary; the summarizer's input tokens are what a model summarizer would be billed as input (its output as output).",
        `Cost (issue 29 §2): ${MODEL} list prices (the model registry's). Conversation = the simulated cache's cost of the windows and answers without cache writes (OpenAI's rule writes none); compaction = the summarizer's tokens billed as a ${MODEL} call; compaction share = compaction / (conversation + compaction + cache writes).`,
      ],
      data: { rows },
    };
  },
};
