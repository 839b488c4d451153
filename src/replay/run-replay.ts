import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ContextManager, SpendReport } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { Provider } from "@amplifier-ts/contracts";
import { createError, isAmplifierError } from "@amplifier-ts/contracts";
import { type Session, type SessionConfigInput } from "@amplifier-ts/core";
import { createSession } from "../session/index.js";
import { getModelInfo, getTokenCounter } from "@amplifier-ts/tokens";
import { ReplayCache, type ReplayCacheSummary, type ReplayCacheTurn } from "./cache-report.js";
import { eventLoopYielder } from "./event-loop-yield.js";
import { prefixKept } from "./prefix-kept.js";
import { ReplaySpendTally, type ReplaySpend } from "./replay-spend.js";

export interface ReplayOptions {
  /** Path of a JSONL transcript: one Message per line (its name only, when `messages` are given). */
  transcript: string;
  /** The conversation itself, instead of reading `transcript` (messages without metadata.id get `line-<n>`). */
  messages?: Message[];
  /** Explain every turn: each turn's `window` is what `explainLastWindow()` returned (for the Inspector). */
  explainAll?: boolean;
  /** Model to count with and size the budget from (default gpt-4o). */
  model?: string;
  /** Fixed token budget per request (default: the model's window − max output − safety margin). */
  budget?: number;
  /** Session config; default: the embedded context-persistent in a temporary directory. */
  config?: SessionConfigInput | string;
  /** Called after each turn (progress bars, streaming output). */
  onTurn?: (turn: ReplayTurn, total: number) => void;
  /** Turn number (1-based) to explain: its per-message decisions are returned. */
  explainTurn?: number;
  /** Stops the replay between two messages (the session is closed, the temporary folder removed). */
  signal?: AbortSignal;
  /** Simulate the provider's prompt cache over the windows (cache-report.ts, prompt-cache.ts). */
  cache?: boolean;
}

/** One model call of the recorded conversation: the window sent before an assistant message. */
export interface ReplayTurn {
  turn: number;
  /** Index (0-based) of the assistant message this request produced. */
  messageIndex: number;
  historyMessages: number;
  historyTokens: number;
  windowMessages: number;
  windowTokens: number;
  kept: number;
  removed: number;
  truncated: number;
  /** Share (0–1) of the previous window's tokens that start this window unchanged. */
  prefixKept: number;
  ms: number;
  /** With `cache`: what the simulated prompt cache served, and the turn's cost at list prices. */
  cache?: ReplayCacheTurn;
  /**
   * When the transcript's assistant message carries the bill (`metadata.usage.inputTokens`) and the
   * module reconciles counts (`recordUsage`): counted vs billed input and the factor after it.
   */
  usage?: { counted: number; billed: number; ratio?: number; factor: number; accepted: boolean };
  /** With `explainAll`: what `context.explainLastWindow()` returned for this turn (undefined when the module has none). */
  window?: unknown;
}

export interface ReplaySummary {
  transcript: string;
  module: string;
  model: string;
  budget: number | "provider";
  messages: number;
  turns: number;
  totalHistoryTokens: number;
  totalWindowTokens: number;
  /** Tokens saved against sending the whole history every turn, as a share. */
  savedShare: number;
  maxWindowTokens: number;
  /** Token-weighted mean of prefixKept over turns 2…n. */
  meanPrefixKept: number;
  totalMs: number;
  p50Ms: number;
  p99Ms: number;
  cache?: ReplayCacheSummary;
  /** What the session spent: conversation, compaction and cache writes apart (replay-spend.ts). */
  spend?: ReplaySpend;
}

export interface ReplayResult {
  summary: ReplaySummary;
  turns: ReplayTurn[];
  /** What `context.explainLastWindow()` returned for `explainTurn` (built-ins: `{ report, model, encoding }`). */
  explain?: unknown;
  /** Set when `explainTurn` was asked: false when the module has no `explainLastWindow()`. */
  explainSupported?: boolean;
}

type ExplainingContext = ContextManager & {
  explainLastWindow?: () => unknown;
  moduleName?: unknown;
  spend?: { breakdown?: SpendReport };
  recordUsage?: (usage: { inputTokens?: number }, options?: { model?: string }) => Promise<{ counted: number; billed: number; ratio?: number; factor: number; accepted: boolean } | undefined>;
};

/**
 * Feeds a recorded conversation turn by turn through a context module, the way an orchestrator
 * would: before each assistant message it asks for a window (that is the request the model saw),
 * then stores the message. Measures what each window cost and how much of the previous window it
 * kept as a prefix (what a provider's prompt cache can reuse).
 */
export async function runReplay(options: ReplayOptions): Promise<ReplayResult> {
  options.signal?.throwIfAborted();
  const { messages, lines } = options.messages === undefined ? await readTranscript(options.transcript) : withIds(options.messages);
  const model = options.model ?? "gpt-4o";
  const info = getModelInfo(model);
  const provider: Provider = {
    getInfo: () => ({
      id: "replay",
      defaults: { model, context_window: info?.contextWindow ?? 128_000, max_output_tokens: info?.maxOutputTokens ?? 4_096 },
    }),
  };
  let tempDir: string | undefined;
  let config = options.config;
  const counter = getTokenCounter(model);
  const cache = options.cache ? new ReplayCache(info, counter) : undefined;
  const spend = new ReplaySpendTally(info?.prices, options.cache === true);
  let contextSpend: SpendReport | undefined;
  const fallbackBudget = options.budget ?? (info ? info.contextWindow - info.maxOutputTokens - 1_000 : 100_000);
  const turns: ReplayTurn[] = [];
  const total = messages.filter((m) => m.role === "assistant").length;
  let session: Session | undefined;
  let moduleName = "context";
  let budget: number | "provider" = options.budget ?? "provider";
  let explain: unknown;
  let explainSupported: boolean | undefined;
  try {
    if (config === undefined) {
      tempDir = await mkdtemp(join(tmpdir(), "amplifier-replay-"));
      config = { session: { context: { module: "context-persistent", config: { storagePath: tempDir, fsync: "never", model } } } };
    }
    session = await createSession(config);
    const context = session.context as ExplainingContext;
    moduleName = typeof context.moduleName === "string" ? context.moduleName : (session.modules.find((m) => m.point === "context")?.module ?? moduleName);
    let previous: Message[] | undefined;
    /** Ids of the messages stored so far: "kept" counts window messages that are stored ones (not synthetic). */
    const storedIds = new Set<string>();
    let historyTokens = counter.replyPriming;
    // An in-memory module never leaves the microtask queue: without yields a replay would hold the
    // event loop for its whole length (a server's other requests, Ctrl-C, timers). It yields before
    // every turn's window (the expensive step) and every few ms in between.
    const loop = eventLoopYielder();
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]!;
      await (message.role === "assistant" ? loop.yieldNow() : loop.yieldSometimes());
      options.signal?.throwIfAborted();
      if (message.role === "assistant") {
        const explainThis = options.explainAll === true || options.explainTurn === turns.length + 1;
        const started = performance.now();
        const window = await context.getMessagesForRequest(options.budget, provider, { explain: explainThis });
        const ms = performance.now() - started;
        const report = lastReport(context);
        let kept = 0;
        let truncated = 0;
        for (const m of window) {
          const id = m.metadata?.id;
          if (id !== undefined && storedIds.has(id)) kept++;
          if (m.metadata?.truncated !== undefined && m.metadata.truncated !== false) truncated++;
        }
        // The assembler's count, plus the messages sent as the excerpt of a spilled input (shortened too).
        if (typeof report?.truncated === "number") truncated = report.truncated + window.filter((m) => isSpilledExcerpt(m)).length;
        if (typeof report?.budget === "number") budget = report.budget;
        const turn: ReplayTurn = {
          turn: turns.length + 1,
          messageIndex: i,
          historyMessages: i,
          historyTokens,
          windowMessages: window.length,
          windowTokens: counter.countRequest(window),
          kept,
          removed: Math.max(0, i - kept),
          truncated,
          prefixKept: previous ? prefixKept(previous, window, counter) : 1,
          ms,
        };
        if (cache) turn.cache = cache.turn(window, messages.slice(0, i), typeof report?.budget === "number" ? report.budget : fallbackBudget, message);
        spend.turn(turn.windowTokens, turn.cache?.outputTokens ?? counter.countMessage(message), turn.cache, message);
        const billed = (message.metadata as { usage?: { inputTokens?: unknown } } | undefined)?.usage?.inputTokens;
        if (typeof billed === "number" && typeof context.recordUsage === "function") {
          const record = await context.recordUsage({ inputTokens: billed });
          if (record) turn.usage = { counted: record.counted, billed: record.billed, ...(record.ratio === undefined ? {} : { ratio: record.ratio }), factor: record.factor, accepted: record.accepted };
        }
        if (options.explainAll === true && typeof context.explainLastWindow === "function") turn.window = context.explainLastWindow();
        if (options.explainTurn === turn.turn) {
          explainSupported = typeof context.explainLastWindow === "function";
          explain = explainSupported ? context.explainLastWindow!() : undefined;
        }
        turns.push(turn);
        options.onTurn?.(turn, total);
        previous = window;
      }
      try {
        await context.addMessage(message);
      } catch (error) {
        if (!isAmplifierError(error, "INVALID_MESSAGE")) throw error;
        throw createError("TRANSCRIPT_INVALID", `line ${lines[i]} is not a valid message: ${error.message}`, {
          file: options.transcript,
          path: `line ${lines[i]}`,
          cause: error,
        });
      }
      storedIds.add(message.metadata!.id!);
      historyTokens += counter.countMessage(message);
    }
    contextSpend = (session.context as ExplainingContext).spend?.breakdown;
  } finally {
    await session?.close();
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  }
  const result: ReplayResult = { summary: { ...summarize(options, model, messages.length, turns, moduleName, budget), spend: spend.summary(contextSpend) }, turns };
  if (cache) result.summary.cache = cache.summary();
  if (options.explainTurn !== undefined) {
    result.explain = explain;
    result.explainSupported = explainSupported ?? false;
  }
  return result;
}

/** The built-ins' report of the last window (budget, truncated …), when the module keeps one. */
function lastReport(context: ExplainingContext): { budget?: unknown; truncated?: unknown } | undefined {
  if (typeof context.explainLastWindow !== "function") return undefined;
  const last = context.explainLastWindow() as { report?: { budget?: unknown; truncated?: unknown } } | undefined;
  return typeof last?.report === "object" && last.report !== null ? last.report : undefined;
}

/** Given messages as a transcript: a message without metadata.id gets `line-<n>` (a copy; as readTranscript). */
function withIds(given: readonly Message[]): { messages: Message[]; lines: number[] } {
  const messages = given.map((m, i) => (typeof m.metadata?.id === "string" && m.metadata.id !== "" ? m : { ...m, metadata: { ...m.metadata, id: `line-${i + 1}` } }));
  return { messages, lines: messages.map((_, i) => i + 1) };
}

/**
 * One message per non-blank line. Messages without `metadata.id` get `line-<n>` (a context manager
 * would assign one anyway; replay needs it to tell stored messages from synthetic ones).
 */
export async function readTranscript(path: string): Promise<{ messages: Message[]; lines: number[] }> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    throw createError("INVALID_ARGUMENT", `cannot read transcript ${path}`, { file: path, expected: "a readable JSONL file", cause });
  }
  const messages: Message[] = [];
  const lines: number[] = [];
  const rows = text.split("\n");
  for (let n = 0; n < rows.length; n++) {
    const line = rows[n]!.trim();
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (cause) {
      // A last line without its newline that does not parse is being written (a session file its
      // agent appends to): it is not there yet, as for every reader of a live session.
      if (n === rows.length - 1) break;
      throw createError("TRANSCRIPT_INVALID", `line ${n + 1} is not JSON`, { file: path, path: `line ${n + 1}`, expected: "one JSON message per line", cause });
    }
    if (typeof value !== "object" || value === null || Array.isArray(value) || typeof (value as { role?: unknown }).role !== "string") {
      throw createError("TRANSCRIPT_INVALID", `line ${n + 1} is not a message`, {
        file: path,
        path: `line ${n + 1}`,
        expected: 'a JSON object with a "role"',
        given: value,
      });
    }
    const message = value as Message;
    if (typeof message.metadata?.id !== "string" || message.metadata.id === "") {
      message.metadata = { ...message.metadata, id: `line-${n + 1}` };
    }
    messages.push(message);
    lines.push(n + 1);
  }
  return { messages, lines };
}

function summarize(
  options: ReplayOptions,
  model: string,
  messages: number,
  turns: ReplayTurn[],
  module: string,
  budget: number | "provider",
): Omit<ReplaySummary, "spend"> {
  const ms = turns.map((t) => t.ms).sort((a, b) => a - b);
  const q = (p: number) => (ms.length ? ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]! : 0);
  const totalHistoryTokens = turns.reduce((s, t) => s + t.historyTokens, 0);
  const totalWindowTokens = turns.reduce((s, t) => s + t.windowTokens, 0);
  let weighted = 0;
  let weights = 0;
  for (let i = 1; i < turns.length; i++) {
    weighted += turns[i]!.prefixKept * turns[i - 1]!.windowTokens;
    weights += turns[i - 1]!.windowTokens;
  }
  return {
    transcript: options.transcript,
    module,
    model,
    budget,
    messages,
    turns: turns.length,
    totalHistoryTokens,
    totalWindowTokens,
    savedShare: totalHistoryTokens ? 1 - totalWindowTokens / totalHistoryTokens : 0,
    maxWindowTokens: turns.reduce((m, t) => Math.max(m, t.windowTokens), 0),
    meanPrefixKept: weights ? weighted / weights : 1,
    totalMs: turns.reduce((s, t) => s + t.ms, 0),
    p50Ms: q(0.5),
    p99Ms: q(0.99),
  };
}

/** A window copy of a spilled input that the assembler did not cut further (it would count it itself). */
function isSpilledExcerpt(message: Message): boolean {
  const mark = message.metadata?.window as { spilled?: unknown; truncated?: unknown } | undefined;
  return typeof mark === "object" && mark !== null && mark.spilled !== undefined && mark.truncated === undefined;
}
