import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ContextManager } from "../../contracts/context-manager.js";
import type { Message } from "../../contracts/generated/message.js";
import type { Provider } from "../../contracts/provider.js";
import { createError } from "../errors.js";
import { createSession, type SessionConfigInput } from "../session.js";
import { getModelInfo, getTokenCounter } from "../tokens/index.js";
import { prefixKept } from "./prefix-kept.js";

export interface ReplayOptions {
  /** Path of a JSONL transcript: one Message per line. */
  transcript: string;
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
}

export interface ReplayResult {
  summary: ReplaySummary;
  turns: ReplayTurn[];
  explain?: unknown;
}

/**
 * Feeds a recorded conversation turn by turn through a context module, the way an orchestrator
 * would: before each assistant message it asks for a window (that is the request the model saw),
 * then stores the message. Measures what each window cost and how much of the previous window it
 * kept as a prefix (what a provider's prompt cache can reuse).
 */
export async function runReplay(options: ReplayOptions): Promise<ReplayResult> {
  const messages = await readTranscript(options.transcript);
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
  if (config === undefined) {
    tempDir = await mkdtemp(join(tmpdir(), "amplifier-replay-"));
    config = { session: { context: { module: "context-persistent", config: { storagePath: tempDir, fsync: "never", model } } } };
  }
  const session = await createSession(config);
  const counter = getTokenCounter(model);
  const context = session.context as ContextManager & { explainLastWindow?: () => unknown };
  const turns: ReplayTurn[] = [];
  const total = messages.filter((m) => m.role === "assistant").length;
  let previous: Message[] | undefined;
  let explain: unknown;
  try {
    let historyTokens = counter.replyPriming;
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]!;
      if (message.role === "assistant") {
        const started = performance.now();
        const window = await context.getMessagesForRequest(options.budget, provider, {
          explain: options.explainTurn === turns.length + 1,
        });
        const ms = performance.now() - started;
        const windowIds = new Set(window.map((m) => m.metadata?.id));
        const truncated = window.filter((m) => m.metadata?.truncated !== undefined).length;
        const turn: ReplayTurn = {
          turn: turns.length + 1,
          messageIndex: i,
          historyMessages: i,
          historyTokens,
          windowMessages: window.length,
          windowTokens: counter.countRequest(window),
          kept: messages.slice(0, i).filter((m) => windowIds.has(m.metadata?.id)).length,
          removed: 0,
          truncated,
          prefixKept: previous ? prefixKept(previous, window, counter) : 1,
          ms,
        };
        turn.removed = i - turn.kept;
        if (options.explainTurn === turn.turn) explain = context.explainLastWindow?.();
        turns.push(turn);
        options.onTurn?.(turn, total);
        previous = window;
      }
      await context.addMessage(message);
      historyTokens += counter.countMessage(message);
    }
  } finally {
    await session.close();
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  }
  return { summary: summarize(options, model, messages.length, turns, session), turns, explain };
}

async function readTranscript(path: string): Promise<Message[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    throw createError("INVALID_ARGUMENT", `cannot read transcript ${path}`, { file: path, expected: "a readable JSONL file", cause });
  }
  const out: Message[] = [];
  const lines = text.split("\n");
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!.trim();
    if (line === "") continue;
    try {
      out.push(JSON.parse(line) as Message);
    } catch (cause) {
      throw createError("TRANSCRIPT_INVALID", `line ${n + 1} is not JSON`, { file: path, path: `line ${n + 1}`, expected: "one JSON message per line", cause });
    }
  }
  return out;
}

function summarize(options: ReplayOptions, model: string, messages: number, turns: ReplayTurn[], session: { context: unknown }): ReplaySummary {
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
    module: (session.context as { moduleName?: string }).moduleName ?? "context",
    model,
    budget: options.budget ?? "provider",
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
