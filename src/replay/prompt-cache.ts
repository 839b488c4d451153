/**
 * A simulation of the providers' prompt caches over a sequence of requests (`replay --cache`).
 * A request is a list of segments in sent order — the tool block, then one per message, then the
 * reply priming — each with a key (what was sent) and its token count. Identity is per segment:
 * a message that changed breaks the prefix at its start (the tokens of its unchanged beginning
 * are not credited, so the figures err low). Every request is assumed to arrive within the
 * cache's lifetime (OpenAI: 5–10 minutes idle; Anthropic: 5 minutes, refreshed by each hit).
 *
 * | rule      | read (cached input)                                                             | write                          |
 * |-----------|---------------------------------------------------------------------------------|--------------------------------|
 * | openai    | the longest prefix shared with any earlier request, if the request has ≥ 1,024 tokens: 1,024 + 128·⌊(prefix − 1,024) / 128⌋ (0 below 1,024) | automatic, free |
 * | anthropic | the longest earlier breakpoint prefix found at one of this request's breakpoints or up to 20 segments before one | the tokens from the read's end to the last breakpoint, billed as cache writes |
 *
 * Anthropic breakpoints are where `toAnthropic(…, { cache: true })` puts them (at most 3 of the
 * 4 allowed): the last instruction, the last user-side message before the final turn, the final
 * message. A breakpoint prefix shorter than the model's minimum (1,024 tokens; 2,048 for Haiku
 * models) is neither written nor read.
 */
export type CacheRule = "openai" | "anthropic";

export interface CacheSegment {
  key: string;
  tokens: number;
  /** Anthropic's side of the conversation: instructions are hoisted into `system`. */
  side: "instruction" | "user" | "assistant" | "other";
}

export interface CacheTurn {
  inputTokens: number;
  /** Input tokens served from the cache (billed at the cached-input price). */
  cachedTokens: number;
  /** Input tokens written to the cache (Anthropic; billed at the cache-write price). */
  writeTokens: number;
}

export const OPENAI_CACHE_MINIMUM = 1_024;
export const OPENAI_CACHE_STEP = 128;
export const ANTHROPIC_LOOKBACK = 20;

interface TrieNode {
  children: Map<string, TrieNode>;
  /** Anthropic: a breakpoint prefix ending here was written. */
  written: boolean;
}

export class PromptCacheSimulator {
  readonly rule: CacheRule;
  readonly minimumTokens: number;
  readonly #root: TrieNode = { children: new Map(), written: false };

  constructor(rule: CacheRule, options: { minimumTokens?: number } = {}) {
    this.rule = rule;
    this.minimumTokens = options.minimumTokens ?? OPENAI_CACHE_MINIMUM;
  }

  /** Sends one request through the cache: what it read and wrote. */
  next(segments: readonly CacheSegment[]): CacheTurn {
    const inputTokens = segments.reduce((sum, s) => sum + s.tokens, 0);
    return this.rule === "openai" ? this.#openai(segments, inputTokens) : this.#anthropic(segments, inputTokens);
  }

  #openai(segments: readonly CacheSegment[], inputTokens: number): CacheTurn {
    let node = this.#root;
    let matched = 0;
    let walking = true;
    for (const segment of segments) {
      let child = node.children.get(segment.key);
      if (walking && child) matched += segment.tokens;
      else walking = false;
      if (!child) {
        child = { children: new Map(), written: false };
        node.children.set(segment.key, child);
      }
      node = child;
    }
    const cachedTokens = inputTokens < this.minimumTokens || matched < this.minimumTokens ? 0 : this.minimumTokens + Math.floor((matched - this.minimumTokens) / OPENAI_CACHE_STEP) * OPENAI_CACHE_STEP;
    return { inputTokens, cachedTokens, writeTokens: 0 };
  }

  #anthropic(segments: readonly CacheSegment[], inputTokens: number): CacheTurn {
    const breakpoints = anthropicBreakpoints(segments);
    // Walk the request into the trie; remember each position's node and prefix tokens.
    const nodes: TrieNode[] = [];
    const prefix: number[] = [];
    let node = this.#root;
    let tokens = 0;
    for (const segment of segments) {
      let child = node.children.get(segment.key);
      if (!child) {
        child = { children: new Map(), written: false };
        node.children.set(segment.key, child);
      }
      node = child;
      tokens += segment.tokens;
      nodes.push(node);
      prefix.push(tokens);
    }
    let read = 0;
    for (const b of breakpoints) {
      for (let p = b; p >= 0 && p >= b - ANTHROPIC_LOOKBACK; p--) {
        if (nodes[p]!.written) {
          read = Math.max(read, prefix[p]!);
          break;
        }
      }
    }
    let written = read;
    for (const b of breakpoints) {
      if (prefix[b]! < this.minimumTokens) continue;
      nodes[b]!.written = true;
      written = Math.max(written, prefix[b]!);
    }
    return { inputTokens, cachedTokens: read, writeTokens: written - read };
  }
}

/**
 * Segment indexes that carry `cache_control` (see the file comment), ascending, without repeats.
 * The final turn is the run of same-side segments at the end (the adapter merges them into one
 * message); the user-side breakpoint is the last user-side segment before it.
 */
export function anthropicBreakpoints(segments: readonly CacheSegment[]): number[] {
  const points = new Set<number>();
  let lastInstruction = -1;
  let last = -1;
  segments.forEach((s, i) => {
    if (s.side === "instruction") lastInstruction = i;
    if (s.side === "user" || s.side === "assistant") last = i;
  });
  if (lastInstruction >= 0) points.add(lastInstruction);
  if (last >= 0) {
    points.add(last);
    let start = last;
    while (start > 0 && segments[start - 1]!.side === segments[last]!.side) start--;
    for (let i = start - 1; i >= 0; i--) {
      if (segments[i]!.side === "user") {
        points.add(i);
        break;
      }
    }
  }
  return [...points].sort((a, b) => a - b);
}

export interface CachePrices {
  input: number;
  cachedInput: number;
  output: number;
  cacheWrite?: number;
}

/** USD for one turn at list prices per million tokens; writes at the input price when no write price is listed. */
export function turnCost(turn: CacheTurn, outputTokens: number, prices: CachePrices): number {
  const uncached = turn.inputTokens - turn.cachedTokens - turn.writeTokens;
  return (uncached * prices.input + turn.cachedTokens * prices.cachedInput + turn.writeTokens * (prices.cacheWrite ?? prices.input) + outputTokens * prices.output) / 1e6;
}
