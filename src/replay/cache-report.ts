import type { Message } from "@amplifier-ts/contracts";
import { isInstruction } from "@amplifier-ts/contracts";
import type { ModelInfo, ModelPrices } from "@amplifier-ts/tokens";
import { PromptCacheSimulator, turnCost, type CacheRule, type CacheSegment, type CacheTurn } from "./prompt-cache.js";

interface Counter {
  countMessage(m: Message): number;
  readonly replyPriming: number;
}

/** One turn's cache figures (`replay --cache`). Costs in USD at list prices; undefined without prices. */
export interface ReplayCacheTurn extends CacheTurn {
  outputTokens: number;
  costUsd?: number;
  /** The same turn with no cache at all. */
  uncachedCostUsd?: number;
  /** The naive tail window of the same turn: its input and cached tokens. */
  tailInputTokens: number;
  tailCachedTokens: number;
  tailCostUsd?: number;
}

export interface ReplayCacheSummary {
  rule: CacheRule;
  minimumTokens: number;
  inputTokens: number;
  cachedTokens: number;
  writeTokens: number;
  /** cachedTokens / inputTokens over all turns. */
  hitRate: number;
  costUsd?: number;
  uncachedCostUsd?: number;
  /** The naive tail window (instructions + the newest messages that fit, cut moving every turn). */
  tail: { inputTokens: number; cachedTokens: number; hitRate: number; costUsd?: number };
  prices?: ModelPrices;
}

/**
 * Follows a replay turn by turn: the module's window and, for comparison, a naive tail window of
 * the same history and budget, each through its own simulated cache (prompt-cache.ts).
 */
export class ReplayCache {
  readonly #window: PromptCacheSimulator;
  readonly #tail: PromptCacheSimulator;
  readonly #counter: Counter;
  readonly #prices: ModelPrices | undefined;
  readonly #turns: ReplayCacheTurn[] = [];

  constructor(model: ModelInfo | undefined, counter: Counter) {
    const rule: CacheRule = model?.family === "anthropic" ? "anthropic" : "openai";
    // Anthropic's minimum cacheable prompt: 2,048 tokens on Haiku models, 1,024 on the others.
    const minimumTokens = rule === "anthropic" && model?.name.includes("haiku") ? 2_048 : 1_024;
    this.#window = new PromptCacheSimulator(rule, { minimumTokens });
    this.#tail = new PromptCacheSimulator(rule, { minimumTokens });
    this.#counter = counter;
    this.#prices = model?.prices;
  }

  /** The turn whose request was `window`, over `history` (the stored messages before it), answered by `answer`. */
  turn(window: readonly Message[], history: readonly Message[], budget: number, answer: Message): ReplayCacheTurn {
    const outputTokens = this.#counter.countMessage(answer);
    const sent = this.#window.next(this.#segments(window));
    const tail = this.#tail.next(this.#segments(tailWindow(history, budget, this.#counter)));
    const prices = this.#prices;
    const turn: ReplayCacheTurn = {
      ...sent,
      outputTokens,
      tailInputTokens: tail.inputTokens,
      tailCachedTokens: tail.cachedTokens,
      ...(prices
        ? {
            costUsd: turnCost(sent, outputTokens, prices),
            uncachedCostUsd: turnCost({ inputTokens: sent.inputTokens, cachedTokens: 0, writeTokens: 0 }, outputTokens, prices),
            tailCostUsd: turnCost(tail, outputTokens, prices),
          }
        : {}),
    };
    this.#turns.push(turn);
    return turn;
  }

  summary(): ReplayCacheSummary {
    const sum = (pick: (t: ReplayCacheTurn) => number | undefined) => this.#turns.reduce((s, t) => s + (pick(t) ?? 0), 0);
    const inputTokens = sum((t) => t.inputTokens);
    const cachedTokens = sum((t) => t.cachedTokens);
    const tailInput = sum((t) => t.tailInputTokens);
    const tailCached = sum((t) => t.tailCachedTokens);
    const prices = this.#prices;
    return {
      rule: this.#window.rule,
      minimumTokens: this.#window.minimumTokens,
      inputTokens,
      cachedTokens,
      writeTokens: sum((t) => t.writeTokens),
      hitRate: inputTokens ? cachedTokens / inputTokens : 0,
      ...(prices ? { costUsd: sum((t) => t.costUsd), uncachedCostUsd: sum((t) => t.uncachedCostUsd) } : {}),
      tail: { inputTokens: tailInput, cachedTokens: tailCached, hitRate: tailInput ? tailCached / tailInput : 0, ...(prices ? { costUsd: sum((t) => t.tailCostUsd) } : {}) },
      ...(prices ? { prices } : {}),
    };
  }

  #segments(window: readonly Message[]): CacheSegment[] {
    const segments: CacheSegment[] = window.map((m) => ({
      key: JSON.stringify([m.metadata?.id ?? null, m.role, m.content ?? null, m.tool_calls ?? null, m.tool_call_id ?? null, m.name ?? null]),
      tokens: this.#counter.countMessage(m),
      side: isInstruction(m) ? "instruction" : m.role === "assistant" ? "assistant" : "user",
    }));
    segments.push({ key: "\u0000reply-priming", tokens: this.#counter.replyPriming, side: "other" });
    return segments;
  }
}

/**
 * The naive window: every instruction, then the newest messages that fit what is left of the
 * budget, cut anew every turn (no hysteresis, no tool pairing: a baseline, not a valid request).
 */
export function tailWindow(history: readonly Message[], budget: number, counter: Counter): Message[] {
  const instructions = history.filter((m) => isInstruction(m));
  let left = budget - counter.replyPriming - instructions.reduce((s, m) => s + counter.countMessage(m), 0);
  const tail: Message[] = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (isInstruction(m)) continue;
    const tokens = counter.countMessage(m);
    if (tokens > left) break;
    left -= tokens;
    tail.push(m);
  }
  return [...instructions, ...tail.reverse()];
}
