import type { Message } from "@amplifier-ts/contracts";
import { type SessionConfigInput } from "@amplifier-ts/core";
import { getTokenCounter } from "@amplifier-ts/tokens";
import { decisionRuns, type AnalyzedTurn, type ExplainedMessage, type SessionAnalysis } from "@amplifier-ts/inspector";
import { eventLoopYielder } from "./event-loop-yield.js";
import { runReplay, type ReplayResult, type ReplayTurn } from "./run-replay.js";

export interface AnalyzeSessionOptions {
  /** Model to count with and size the budget from (default gpt-4o). */
  model?: string;
  /** Fixed token budget per request (default: the model's window − max output − margin). */
  budget?: number;
  /** Session config whose context module to replay through (default: the embedded context-persistent). */
  config?: SessionConfigInput | string;
  /** Simulate the provider's prompt cache (replay --cache): a cached share per turn without bills. */
  cache?: boolean;
  /** A name for errors and the summary (default "session"). */
  name?: string;
  /** Called after each replayed turn (the Inspector shows it while the analysis runs). */
  onProgress?: (turnsDone: number, turns: number) => void;
  /** Stops the analysis between two steps (it rejects with the signal's reason). */
  signal?: AbortSignal;
}

/**
 * What the Inspector shows of a session's windows: the session replayed turn by turn through a
 * context module with explain on every turn (runReplay), each turn's explanation kept as decision
 * runs over the session's positions, and each message's own token count.
 *
 * | turn field | from |
 * |---|---|
 * | history / window tokens, prefix kept | the replay's turn |
 * | budget | the module's report (else the replay's summary) |
 * | instructionTokens | Σ tokens of the window's `instruction` decisions |
 * | toolTokens | window tokens − Σ decision tokens − reply priming (tool definitions are the rest) |
 * | historyKeptTokens | window tokens − instructions − tool definitions |
 * | cache | the bill (`metadata.usage.cacheReadTokens` of the assistant message), else the simulation with `cache` |
 */
export async function analyzeSession(messages: readonly Message[], options: AnalyzeSessionOptions = {}): Promise<{ analysis: SessionAnalysis; tokens: number[]; replay: ReplayResult }> {
  const model = options.model ?? "gpt-4o";
  const replay = await runReplay({
    transcript: options.name ?? "session",
    messages: [...messages],
    model,
    explainAll: true,
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.config === undefined ? {} : { config: options.config }),
    ...(options.cache === true ? { cache: true } : {}),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onProgress === undefined ? {} : { onTurn: (turn: ReplayTurn, total: number) => options.onProgress!(turn.turn, total) }),
  });
  // Counting every message and laying out every turn's decisions is O(messages × turns) on a long
  // session: done in slices, so a server stays responsive while it analyses (event-loop-yield.ts).
  const loop = eventLoopYielder();
  const counter = getTokenCounter(model);
  const tokens: number[] = [];
  for (const m of messages) {
    await loop.yieldSometimes();
    options.signal?.throwIfAborted();
    tokens.push(counter.countMessage(m));
  }
  const positions = new Map<string, number>();
  messages.forEach((m, i) => positions.set(typeof m.metadata?.id === "string" && m.metadata.id !== "" ? m.metadata.id : `line-${i + 1}`, i));
  const fallbackBudget = typeof replay.summary.budget === "number" ? replay.summary.budget : 0;
  const turns: AnalyzedTurn[] = [];
  for (const turn of replay.turns) {
    await loop.yieldSometimes();
    options.signal?.throwIfAborted();
    turns.push(analyzedTurn(turn, messages, positions, counter.replyPriming, fallbackBudget));
  }
  // A fixed budget is the simulation's: the page labels the replay with it.
  return { analysis: { module: replay.summary.module, model, ...(options.budget === undefined ? {} : { budget: options.budget }), turns, ...(replay.summary.spend ? { spend: replay.summary.spend } : {}) }, tokens, replay };
}

interface LastWindowShape {
  report?: { budget?: number; windowTokens?: number; decisions?: Array<{ index: number; id?: string; action: string; reason: string; tokens?: number }> };
  explanation?: ExplainedMessage[];
}

function analyzedTurn(turn: ReplayTurn, messages: readonly Message[], positions: Map<string, number>, replyPriming: number, fallbackBudget: number): AnalyzedTurn {
  const window = (turn.window ?? undefined) as LastWindowShape | undefined;
  const decisions = window?.report?.decisions ?? [];
  let instructionTokens = 0;
  let decided = 0;
  const truncatedTokens: Record<number, number> = {};
  for (const d of decisions) {
    const t = d.tokens ?? 0;
    decided += t;
    if (d.reason === "instruction") instructionTokens += t;
    if (d.action === "truncated" && d.id !== undefined && positions.has(d.id)) truncatedTokens[positions.get(d.id)!] = t;
  }
  const toolTokens = decisions.length === 0 ? 0 : Math.max(0, turn.windowTokens - decided - replyPriming);
  const analyzed: AnalyzedTurn = {
    turn: turn.turn,
    messageIndex: turn.messageIndex,
    historyMessages: turn.historyMessages,
    historyTokens: turn.historyTokens,
    windowMessages: turn.windowMessages,
    windowTokens: turn.windowTokens,
    budget: window?.report?.budget ?? fallbackBudget,
    prefixKept: turn.prefixKept,
    instructionTokens,
    historyKeptTokens: Math.max(0, turn.windowTokens - instructionTokens - toolTokens),
    toolTokens,
  };
  if (window?.explanation !== undefined) analyzed.decisions = decisionRuns(window.explanation, (id) => positions.get(id));
  if (Object.keys(truncatedTokens).length > 0) analyzed.truncatedTokens = truncatedTokens;
  const usage = (messages[turn.messageIndex]?.metadata as { usage?: { inputTokens?: unknown; cacheReadTokens?: unknown } } | undefined)?.usage;
  if (typeof usage?.inputTokens === "number" && typeof usage.cacheReadTokens === "number") analyzed.cache = { inputTokens: usage.inputTokens, cachedTokens: usage.cacheReadTokens, billed: true };
  else if (turn.cache !== undefined) analyzed.cache = { inputTokens: turn.cache.inputTokens, cachedTokens: turn.cache.cachedTokens, billed: false };
  return analyzed;
}
