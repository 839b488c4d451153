/**
 * Issue 29 §2 — what compaction costs: a 300-turn generated tool-using session at a 128k budget,
 * turn by turn through context-simple with the summarizing pipeline (tool-result-compaction →
 * summarizing), each model call's bill simulated and recorded on the bus like a provider's:
 *
 * | bill            | tokens                                                                                  |
 * |-----------------|-----------------------------------------------------------------------------------------|
 * | the answer      | the window as counted, through the prompt cache simulator (src/replay/prompt-cache.ts; the model family's rule): cache reads and writes; output = the recorded assistant message |
 * | the summarizer  | a local stand-in: the offline extractive summary's text, billed as a model call at the conversation model's prices — input = the summarised messages as counted, output = the summary's tokens |
 *
 * The context manager's `spend.breakdown` splits them (conversation / compaction / cache writes);
 * the row reports compaction's share of the cost. The same session under `compactionPolicy:
 * "cost"` (horizon 10) and under the default threshold, for both cache rules, shows what the
 * policy changes in money. Figures are INFO: the prices are list prices, the bills simulated.
 */
import type { Message } from "../../contracts/generated/message.js";
import type { Summarizer } from "../../contracts/index.js";
import { Coordinator } from "../../core/coordinator.js";
import { mount as mountSimple } from "../../modules/context-simple/index.js";
import { ExtractiveSummarizer } from "../../modules/summarizers/index.js";
import { getModelInfo, getTokenCounter } from "../../modules/tokens/index.js";
import { PromptCacheSimulator, type CacheSegment } from "../../src/replay/prompt-cache.js";
import { count, percent } from "./measure.js";
import { sessionWithTurns } from "./pipelines.js";
import { GENERATED_HISTORY, check, type BenchContext, type Check, type Scenario, type ScenarioResult } from "./scenario.js";

const TURNS = 300;
const BUDGET = 128_000;
// contextWindow: the summarizing trigger is 0.8 × the 128k budget for both models (else 0.8 × Claude's 200k window, never reached).
const STRATEGIES = [{ use: "tool-result-compaction", maxChars: 2000 }, { use: "summarizing", threshold: 0.8, contextWindow: BUDGET }];

interface Run {
  model: string;
  policy: "threshold" | "cost";
  /** false: the default window alone (no strategies, no summarizer). */
  summarizing: boolean;
}

export interface PricedFigures {
  label: string;
  turns: number;
  historyTokens: number;
  summarizerCalls: number;
  providerCompactions: number;
  conversationTokens: number;
  conversationUsd: number;
  compactionTokens: number;
  compactionUsd: number;
  cacheWriteTokens: number;
  cacheWriteUsd: number;
  totalUsd: number;
  compactionShare: number;
  cachedShare: number;
  costCompactions: number;
}

function segmentsOf(window: readonly Message[], counter: ReturnType<typeof getTokenCounter>): CacheSegment[] {
  const segments: CacheSegment[] = window.map((m) => ({
    key: JSON.stringify([m.metadata?.id ?? null, m.role, m.content ?? null, m.tool_calls ?? null, m.tool_call_id ?? null, m.name ?? null]),
    tokens: counter.countMessage(m),
    side: m.role === "system" || m.role === "developer" ? "instruction" : m.role === "assistant" ? "assistant" : "user",
  }));
  segments.push({ key: "\u0000reply-priming", tokens: counter.replyPriming, side: "other" });
  return segments;
}

/** One session through the context under `run`, every call billed on the bus; the context's spend split. */
export async function pricedSession(session: readonly Message[], run: Run, budget = BUDGET): Promise<PricedFigures> {
  const info = getModelInfo(run.model);
  const counter = getTokenCounter(run.model);
  const family = info?.family === "anthropic" ? "anthropic" : "openai";
  const cache = new PromptCacheSimulator(family, { minimumTokens: 1_024 });
  const coordinator = new Coordinator({ sessionId: `bench-priced-${process.pid}-${run.model}-${run.policy}` });
  const hooks = coordinator.hooks;
  const extractive = new ExtractiveSummarizer({ counter });
  // The summarizer's bill, as a provider summarizer's call is billed on the bus.
  const summarizer: Summarizer = {
    name: "billed-extractive",
    async summarize(messages, options) {
      const text = await extractive.summarize(messages, options);
      const inputTokens = messages.reduce((s, m) => s + counter.countMessage(m), 0);
      await hooks.emit("provider:response", { provider: "bench", model: run.model, message: { role: "assistant", content: text }, usage: { inputTokens, outputTokens: counter.countText(text) } });
      return text;
    },
  };
  const context = await mountSimple(coordinator, { model: run.model, strategies: run.summarizing ? STRATEGIES : [], compactionPolicy: run.policy === "cost" ? { policy: "cost", horizonTurns: 10 } : "threshold" });
  context.summarizer = summarizer;
  let costCompactions = 0;
  hooks.on("context:pre_compact", (p) => void (p.decision?.compact === true && p.decision.forced !== true && costCompactions++));
  let input = 0;
  let cached = 0;
  let turns = 0;
  let historyTokens = 0;
  try {
    for (const message of session) {
      if (message.role === "assistant") {
        const window = await context.getMessagesForRequest(budget);
        const sent = cache.next(segmentsOf(window, counter));
        input += sent.inputTokens;
        cached += sent.cachedTokens;
        turns++;
        await hooks.emit("provider:response", { provider: "bench", model: run.model, message, usage: { inputTokens: sent.inputTokens, cacheReadTokens: sent.cachedTokens, cacheWriteTokens: sent.writeTokens, outputTokens: counter.countMessage(message) } });
      }
      await context.addMessage(message);
      historyTokens += counter.countMessage(message);
    }
    const b = context.spend.breakdown;
    return {
      label: `${run.model} · ${run.summarizing ? "summarizing" : "default window"} · ${run.policy}`,
      turns,
      historyTokens,
      summarizerCalls: b.compaction.summarizerCalls,
      providerCompactions: b.compaction.providerCompactions,
      conversationTokens: b.conversation.inputTokens + b.conversation.outputTokens,
      conversationUsd: b.conversation.usd,
      compactionTokens: b.compaction.inputTokens + b.compaction.outputTokens,
      compactionUsd: b.compaction.usd,
      cacheWriteTokens: b.cacheWrites.tokens,
      cacheWriteUsd: b.cacheWrites.usd,
      totalUsd: b.totalUsd,
      compactionShare: b.totalUsd > 0 ? b.compaction.usd / b.totalUsd : 0,
      cachedShare: input > 0 ? cached / input : 0,
      costCompactions,
    };
  } finally {
    await coordinator.cleanup();
  }
}

const usd = (n: number) => `$${n.toFixed(2)}`;

export const pricedCompactionScenario: Scenario = {
  id: "priced-compaction",
  title: "Priced compaction: what a 300-turn summarizing session spends on the conversation, on compaction and on cache writes",
  method:
    "A generated 300-turn tool-using session (test/bench/history-generator.ts) at a 128k budget, through context-simple with the summarizing pipeline (tool-result-compaction → summarizing 0.8 of 128k). Every model call is billed on the bus: the window through the prompt cache simulator of the model's family (reads, writes), output the recorded answer; the summarizer is the offline extractive one billed as a model call at the conversation model's list prices (input = the summarised messages, output = the summary). The context manager's spend.breakdown splits the bills; compaction's share = compaction USD / total USD. Each model under compactionPolicy threshold (default) and cost (horizonTurns 10).",
  data: GENERATED_HISTORY,
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const turns = ctx.options.quick ? 120 : TURNS;
    const session = sessionWithTurns(turns);
    const runs: Run[] = [];
    for (const summarizing of [true, false]) for (const model of ["claude-sonnet-4", "gpt-4o"]) for (const policy of ["threshold", "cost"] as const) runs.push({ model, policy, summarizing });
    const figures: PricedFigures[] = [];
    for (const run of runs) {
      ctx.log(`priced-compaction: ${run.model} ${run.policy}`);
      figures.push(await pricedSession(session, run));
    }
    const checks: Check[] = [];
    for (const f of figures.filter((x) => x.label.endsWith("summarizing · threshold"))) {
      checks.push(check(`compaction's share of cost, ${f.label.replace(" · summarizing · threshold", "")} (${turns} turns, 128k, summarizing)`, `${percent(f.compactionShare)} (${usd(f.compactionUsd)} of ${usd(f.totalUsd)}; ${count(f.summarizerCalls)} summarizer calls; cache writes ${usd(f.cacheWriteUsd)})`, "reported", undefined));
    }
    for (const kind of ["summarizing", "default window"]) {
      for (const model of ["claude-sonnet-4", "gpt-4o"]) {
        const t = figures.find((f) => f.label === `${model} · ${kind} · threshold`)!;
        const c = figures.find((f) => f.label === `${model} · ${kind} · cost`)!;
        checks.push(check(`cost policy vs threshold, ${model}, ${kind}: total`, `${usd(c.totalUsd)} vs ${usd(t.totalUsd)} (${c.totalUsd <= t.totalUsd ? "" : "+"}${percent(c.totalUsd / t.totalUsd - 1)})`, "reported", undefined));
      }
    }
    return {
      checks,
      tables: [
        {
          title: `Spend by part, ${turns} turns at 128k (list prices; bills simulated)`,
          columns: ["model · policy", "history tokens", "conversation", "compaction", "cache writes", "total", "compaction share", "summarizer calls", "cost-policy compactions", "cached share"],
          rows: figures.map((f) => [
            f.label,
            count(f.historyTokens),
            `${count(f.conversationTokens)} tok, ${usd(f.conversationUsd)}`,
            `${count(f.compactionTokens)} tok, ${usd(f.compactionUsd)}`,
            `${count(f.cacheWriteTokens)} tok, ${usd(f.cacheWriteUsd)}`,
            usd(f.totalUsd),
            percent(f.compactionShare),
            count(f.summarizerCalls),
            count(f.costCompactions),
            percent(f.cachedShare),
          ]),
        },
      ],
      notes: ["The summarizer stands in for a model: its text is the offline extractive summary, its bill what a model call over the same messages would be at the conversation model's prices. The prompt cache is simulated (every call within the cache's lifetime)."],
      data: figures,
    };
  },
};
