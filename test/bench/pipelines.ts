/**
 * Scenario 6 (issue 5) — compaction pipelines:
 *  (a) the agent-loop turn (addMessage + getMessagesForRequest) at N = 10,000 messages with the
 *      documented pipelines in `strategies` (same history, turns and budget as scenario 1);
 *  (b) prefixKept over a generated 500-turn tool-using session: before every assistant message
 *      the window is requested, and the share of the previous window's tokens that start it
 *      unchanged is measured (core/replay/prefix-kept.ts), token-weighted over turns like replay.
 */
import type { Message } from "../../contracts/generated/message.js";
import { Coordinator } from "../../core/coordinator.js";
import { prefixKept } from "../../src/replay/prefix-kept.js";
import { getModelInfo, getTokenCounter } from "../../core/tokens/index.js";
import { mount as mountSimple } from "../../modules/context-simple/index.js";
import { historyFor, isModelCall, turnMessages, TURN_TARGET_MS } from "./agent-loop-turn.js";
import { generateHistory } from "./history-generator.js";
import { count, distribution, fullGc, ms, percent } from "./measure.js";
import { check, type BenchContext, type Check, type Scenario, type ScenarioResult } from "./scenario.js";
import { checkWindowsAt } from "./tool-pairing.js";

type Spec = Record<string, unknown> & { use: string };
interface Pipeline {
  label: string;
  strategies: Spec[];
  /** Other config keys of the context module (e.g. compactTarget). */
  config?: Record<string, unknown>;
}

export const PIPELINES: readonly Pipeline[] = [
  { label: "default (strategies: [])", strategies: [] },
  {
    label: "seed: tool-result-compaction → selective-tool-call → sliding-window",
    strategies: [
      { use: "tool-result-compaction", maxChars: 500 },
      { use: "selective-tool-call", keepRecentGroups: 5 },
      { use: "sliding-window", maxMessages: 40 },
    ],
  },
  {
    label: "token-budget over cheap → aggressive children",
    strategies: [{ use: "token-budget", model: "gpt-4o", strategies: [{ use: "tool-result-compaction" }, { use: "selective-tool-call" }, { use: "sliding-window" }] }],
  },
  { label: "tool-result-compaction (maxChars 2000)", strategies: [{ use: "tool-result-compaction", maxChars: 2000 }] },
  { label: "summarizing pipeline: tool-result-compaction → summarizing", strategies: [{ use: "tool-result-compaction", maxChars: 2000 }, { use: "summarizing", threshold: 0.8 }] },
];

/** For prefixKept: the reference a plain sliding window gives (no steps: every new message moves the start). */
const PLAIN_SLIDING: Pipeline = {
  label: "plain sliding-window (maxMessages 40, no steps: targetRatio 1)",
  strategies: [{ use: "sliding-window", maxMessages: 40, targetRatio: 1 }],
};

/** Only for prefixKept: the default with a wider hysteresis gap (the cut goes down to 50 % of the budget). */
const WIDER_GAP: Pipeline = { label: "default with compactTarget 0.5", strategies: [], config: { compactTarget: 0.5 } };

const PREFIX_TARGET = 0.95;
const SESSION_TURNS = 500;
const SESSION_SEED = 5005;

async function openWith(pipeline: Pipeline) {
  const coordinator = new Coordinator({ sessionId: `bench-pipelines-${process.pid}` });
  const context = await mountSimple(coordinator, { ...pipeline.config, strategies: pipeline.strategies });
  return { context, close: () => coordinator.cleanup() };
}

interface TurnFigures {
  label: string;
  median: number;
  p99: number;
  invalid: number;
  checked: number;
  firstProblem?: string;
}

async function turnsAt(ctx: BenchContext, n: number, pipeline: Pipeline): Promise<TurnFigures> {
  const history = historyFor(ctx, n);
  const stream = turnMessages(ctx, `p${pipeline.label.length}-${Math.random().toString(36).slice(2, 8)}`);
  const { warmup, budget } = ctx.options;
  const counter = getTokenCounter("gpt-4o");
  fullGc();
  const { context, close } = await openWith(pipeline);
  try {
    await context.setMessages(history);
    const times: number[] = [];
    const toCheck: { at: number; window: Message[] }[] = [];
    for (let i = 0; i < stream.length; i++) {
      const t0 = performance.now();
      await context.addMessage(stream[i]!);
      const window = await context.getMessagesForRequest(budget);
      const t1 = performance.now();
      if (i < warmup) continue;
      times.push(t1 - t0);
      if (isModelCall(stream, i)) toCheck.push({ at: i, window });
    }
    const { invalid, firstProblem } = checkWindowsAt(history, stream, toCheck, budget, counter);
    const d = distribution(times);
    return { label: pipeline.label, median: d.median, p99: d.p99, invalid, checked: toCheck.length, ...(firstProblem ? { firstProblem } : {}) };
  } finally {
    await close();
  }
}

/** A generated tool-using session with `turns` model calls (assistant messages). */
export function sessionWithTurns(turns: number, seed = SESSION_SEED): Message[] {
  let size = turns * 2;
  for (;;) {
    const session = generateHistory({ count: size, seed, idPrefix: "s" });
    let calls = 0;
    for (let i = 0; i < session.length; i++) {
      if (session[i]!.role === "assistant" && ++calls === turns) return session.slice(0, i + 1);
    }
    size = Math.ceil(size * 1.3);
  }
}

interface PrefixFigures {
  label: string;
  budget: string;
  turns: number;
  meanPrefixKept: number;
  lostHalf: number;
  savedShare: number;
  median: number;
}

async function prefixRun(session: Message[], budget: number, budgetLabel: string, pipeline: Pipeline): Promise<PrefixFigures> {
  const counter = getTokenCounter("gpt-4o");
  const { context, close } = await openWith(pipeline);
  try {
    let previous: { window: Message[]; tokens: number } | undefined;
    let weighted = 0;
    let weights = 0;
    let lostHalf = 0;
    let turns = 0;
    let historyTokens = counter.replyPriming;
    let sentTokens = 0;
    let wholeTokens = 0;
    const times: number[] = [];
    for (const message of session) {
      if (message.role === "assistant") {
        const t0 = performance.now();
        const window = await context.getMessagesForRequest(budget);
        times.push(performance.now() - t0);
        const tokens = counter.countRequest(window);
        sentTokens += tokens;
        wholeTokens += historyTokens;
        if (previous) {
          const kept = prefixKept(previous.window, window, counter);
          weighted += kept * previous.tokens;
          weights += previous.tokens;
          if (kept < 0.5) lostHalf++;
        }
        previous = { window, tokens };
        turns++;
      }
      await context.addMessage(message);
      historyTokens += counter.countMessage(message);
    }
    return {
      label: pipeline.label,
      budget: budgetLabel,
      turns,
      meanPrefixKept: weights ? weighted / weights : 1,
      lostHalf,
      savedShare: wholeTokens ? 1 - sentTokens / wholeTokens : 0,
      median: distribution(times).median,
    };
  } finally {
    await close();
  }
}

export const pipelinesScenario: Scenario = {
  id: "pipelines",
  title: "Compaction pipelines: turn time at 10k messages, prefixKept over 500 turns",
  method:
    "(a) As scenario 1 (same history of N = 10,000 messages, same new messages, budget 128,000, gpt-4o counting, context-simple), " +
    "with the documented pipelines in the module's `strategies` config; every model-call window is checked afterwards (tool pairing, budget). " +
    `(b) A generated tool-using session of ${SESSION_TURNS} model calls (test/bench/history-generator.ts, seed ${SESSION_SEED}) is fed message by message; ` +
    "before each assistant message the window is requested (budgets: gpt-4o's default — window − max output − margin — and 32,000), and " +
    "prefixKept = the share of the previous window's tokens that start the next window unchanged (core/replay/prefix-kept.ts), token-weighted over turns; " +
    "'turns losing > 50 %' counts the windows that start differently from the previous one (a cut moved). A plain sliding window (no steps) is the reference.",
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const n = 10_000;
    const turnFigures: TurnFigures[] = [];
    for (const pipeline of PIPELINES) {
      ctx.log(`pipelines: turn at N=${count(n)}, ${pipeline.label}`);
      const figures = await turnsAt(ctx, n, pipeline);
      turnFigures.push(figures);
      ctx.log(`  median ${ms(figures.median)}, p99 ${ms(figures.p99)}, ${figures.invalid} of ${figures.checked} invalid`);
    }
    const session = sessionWithTurns(SESSION_TURNS);
    const info = getModelInfo("gpt-4o");
    const defaultBudget = (info?.contextWindow ?? 128_000) - (info?.maxOutputTokens ?? 16_384) - 1_000;
    const prefix: PrefixFigures[] = [];
    for (const pipeline of [...PIPELINES, WIDER_GAP, PLAIN_SLIDING]) {
      for (const [label, budget] of [[`gpt-4o default (${count(defaultBudget)})`, defaultBudget], ["32,000", 32_000]] as const) {
        ctx.log(`pipelines: prefixKept, ${pipeline.label}, budget ${label}`);
        const figures = await prefixRun(session, budget, label, pipeline);
        prefix.push(figures);
        ctx.log(`  prefixKept ${percent(figures.meanPrefixKept)}, ${figures.lostHalf} turns losing > 50 %`);
      }
    }
    const checks: Check[] = [];
    for (const f of turnFigures) {
      checks.push(check(`turn median at N=10,000: ${f.label}`, ms(f.median), `≤ ${TURN_TARGET_MS} ms`, f.median <= TURN_TARGET_MS));
      checks.push(check(`invalid model-call windows: ${f.label}`, `${f.invalid} of ${f.checked}`, "0", f.invalid === 0));
    }
    const headline = prefix.find((p) => p.label === PIPELINES[0]!.label && p.budget.startsWith("gpt-4o"));
    if (headline) checks.push(check(`prefixKept over ${SESSION_TURNS} turns, default pipeline, gpt-4o budget`, percent(headline.meanPrefixKept), `≥ ${PREFIX_TARGET * 100} %`, headline.meanPrefixKept >= PREFIX_TARGET));
    for (const p of prefix) {
      if (p === headline) continue;
      checks.push(check(`prefixKept: ${p.label}, budget ${p.budget}`, percent(p.meanPrefixKept), p.label === PLAIN_SLIDING.label ? "— (reference)" : `≥ ${PREFIX_TARGET * 100} %`, p.label === PLAIN_SLIDING.label ? undefined : p.meanPrefixKept >= PREFIX_TARGET));
    }
    return {
      checks,
      tables: [
        {
          title: `(a) Turn time at N = 10,000 (addMessage + getMessagesForRequest(${count(ctx.options.budget)}))`,
          columns: ["pipeline", "median", "p99", "invalid model-call windows"],
          rows: turnFigures.map((f) => [f.label, ms(f.median), ms(f.p99), `${f.invalid} of ${f.checked}`]),
        },
        {
          title: `(b) prefixKept over a ${SESSION_TURNS}-turn tool-using session (${count(session.length)} messages)`,
          columns: ["pipeline", "budget", "turns", "mean prefixKept", "turns losing > 50 %", "tokens saved vs whole history", "window median"],
          rows: prefix.map((p) => [p.label, p.budget, String(p.turns), percent(p.meanPrefixKept), String(p.lostHalf), percent(p.savedShare), ms(p.median)]),
        },
      ],
      notes: [
        ...turnFigures.filter((f) => f.firstProblem).map((f) => `${f.label}: first invalid window: ${f.firstProblem}`),
        "The pipelines run over the whole stored history on every request; strategies keep their unit split (HistoryUnits.extend) and tool-result-compaction its copies while the history only grows, so the per-request cost is a few linear passes over message references.",
      ],
      data: { turns: turnFigures, prefix },
    };
  },
};
