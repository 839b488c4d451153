/**
 * `recall` {k = set by the budget, share = 0.4, query = "last-user", ranking = "recall"}: search +
 * recent as a strategy. Old turns that match the current question come
 * back into the window; the rest of the budget is the usual recent window. Model-free by default
 * (BM25 over the stored history, modules/search); hybrid when the context module has an embedder.
 *
 * Output, in stored order (every message an input object, recalled ones as marked copies):
 *
 * | part             | what                                                                                     |
 * |------------------|------------------------------------------------------------------------------------------|
 * | instructions     | every system / developer message that is not a hook turn note (as every strategy); notes are conversation, recalled and cut with their turn |
 * | recalled         | the best hits older than the recent part (a tool group with the prompt of its turn), then — while the budget lasts — the unit after and the unit before each hit, each hit's session date header (modules/search/session-header.ts), and — for a question reaching into the past — wider neighbours (±2 … ±6, not tool groups); `metadata.recalled = true` |
 * | critical units   | always (they are counted first)                                                           |
 * | recent           | the newest units, contiguous, ending with the current prompt's turn                       |
 *
 * Because every recalled unit is older than the recent part, "after the system messages, in
 * stored order" and "the current prompt last" are the same thing as keeping stored order: the
 * window is a subset of the history, so every window invariant holds by construction.
 *
 * Budget: available = RECALL_FILL (0.85) × budget − instructions − critical − reply priming −
 * tools, below the assembler's default compactThreshold (0.9), so the assembler does not cut what
 * recall chose. A new plan fills RECALL_STEP (0.8) of it: the recent part (1 − share), recall up
 * to `share`, and what recall leaves unused goes back to the recent part (whole older turns while
 * they fit). The share adapts: when the query asks something (a question clause or
 * "remind me …", modules/search/recall-query.ts) and its best hit is older than that recent part
 * — the question reaches into the past — the recent part shrinks to the current turn and the
 * exchange before it (newest first, while it fits RECALL_EXCHANGE = 1/16 of the plan), and recall
 * may fill the rest of RECALL_FILL_BACK (0.89) × budget − the same fixed parts (the plan is made
 * for this question: no hysteresis step). A request, or a question
 * whose best hit is recent (current work), keeps `share`. The plan is kept — same start, same
 * recalled messages, no new search — while the history only grows, the query is the same and
 * the window still fits `available` (hysteresis: a stable prefix for the provider's prompt
 * cache, O(window) per request). A new prompt keeps it too (agent sessions must not pay
 * for recall in prompt-cache misses) unless it asks for something the window lacks: a request (no
 * question clause) keeps it without a search, a question when its best STICKY_HITS hits are all in
 * the window already; otherwise it gets a new plan. A unit is kept whole (a tool result never without its call,
 * history-units.ts) or not at all. When the whole history fits, the input is returned unchanged.
 *
 * Issue 30 (options `smoothing`, `focus`, `dates`, `entities`; modules/strategies/recall-scoring.ts):
 * by default a hit's score adds 0.5 × its best ±1 neighbour's (same session), and up to 6k budget
 * the best 3 hits are placed with ±1 … ±2 before further hits (which then get ±1); a recalled
 * reply without its prompt brings that prompt or is left out (the window opens with a user turn).
 * With an embedder, `mixing` says how BM25 and the vectors are combined: "zscore" (default: scores
 * standardised and summed, the dense side × `denseWeight`) or "rrf" (rank fusion).
 *
 * k: unset (the default), the hits asked of the search are autoK(available) = available / 50
 * within [8, 100], and hits are placed while the budget lasts; set, at most k hits are placed
 * from k × 3 candidates.
 *
 * Query: `last-user` — the text of the latest user turn (the current prompt; never a hit itself,
 * hits are searched before the current turn); `last-message` — the newest non-instruction message
 * (in an agent loop, the latest tool result). With `ranking: "recall"` (default) a message that
 * asks something among other things is searched by its question clauses only, and a pool of
 * 2 × the hits is reordered with tool output × 0.5; `ranking: "cues"` adds the English cue rules
 * tuned on the generated eval (modules/search/recall-ranking.ts: answer type — name, date,
 * number, decision, preference — up, revisions up for questions about the current state, a hit
 * matched only by its own question down, maximal marginal relevance) over a pool of 10 × the
 * hits: on conversations people wrote they moved nothing (BENCHMARKS.md, the ablation), so the
 * default leaves them out; `ranking: "search"` takes the search's order for the whole message.
 * With `feedback` the search runs twice (pseudo-relevance feedback, RM3-style: the telling terms
 * of the first pass's best hits added to the query, modules/search/history-search-index.ts); off
 * by default. Hits come from `context.search` (the context module's incremental index over the stored
 * history, which also indexes each user/assistant message's `name`), else from an index this
 * strategy keeps over its input (extended while the input only grows). While the query and the
 * current turn's start do not change and the history only grows, the previous hits are reused
 * (a loop of tool calls under one prompt searches once). When the index has a large backlog to
 * catch up on (a resumed or replaced history of more than 5,000 messages not indexed yet), the
 * window goes without recalled messages while the index is built in the background, in chunks —
 * the first window after resume is never blocked by the build; `await
 * context.searchIndex.catchUp()` makes it ready up front.
 *
 * Cost per request: O(new messages + window + hits) while the history only grows — the
 * split grows with the input (a rewrite rolls it back to the first changed message), unit tokens
 * are counted once (unit-token-memo.ts), and the output is a log rewritten only from its first
 * changed message (recall-output.ts). What stays O(history) once: the first split after a resume
 * or a replaced history, and a search's index catching up.
 *
 * Explain: recalled messages "kept" by "recall" with the matched query terms and score (and
 * whether they came as a hit, its neighbour or its session's date header); messages neither
 * recent nor recalled "dropped".
 */
import { z } from "zod";
import type { CompactionContext, CompactionStrategy } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { HistorySearch, SearchFeedback, SearchHit } from "@amplifier-ts/contracts";
import { HistorySearchIndex, isSessionHeader, questionClauses, type HistorySearchIndexOptions } from "@amplifier-ts/search";
import { searchableText } from "@amplifier-ts/search";
import { recallQuery } from "@amplifier-ts/search";
import { recallCandidates, type RankedHit, type RankingRule } from "@amplifier-ts/search";
import { HistoryUnits, INSTRUCTION, messageId } from "./history-units.js";
import { ArraySource, differs, HistorySource, LogCursor, type IncrementalStrategy, type LogStep, type MessageSource } from "./message-log.js";
import { KEEP_ALL, RecallOutput, type OutputExplain, type Selection } from "./recall-output.js";
import { UnitTokenMemo } from "./unit-token-memo.js";
import { rescore, speakerOf } from "./recall-scoring.js";
import { defineStrategy, idOf } from "@amplifier-ts/contracts";

/** The default `focus` applies up to this budget (tokens): the development sets gained at 2k and 4k and lost at 8k. */
export const FOCUS_MAX_BUDGET = 6_000;

export const recallOptions = z
  .object({
    /** Hits recalled at most (each with its exchange); unset: set by the budget recall has (autoK). */
    k: z.number().int().positive().max(100).optional(),
    /** Share of the available budget recalled messages may take. */
    share: z.number().gt(0).lt(1).default(0.4),
    /** What to search for: the latest user turn, or the newest message. */
    query: z.enum(["last-user", "last-message"]).default("last-user"),
    /**
     * How hits are ordered: "recall" — the question clauses of the message are the query, tool
     * output down; "cues" — also the English cue rules tuned on the generated eval (answer type,
     * revisions, a hit matched by its own question down, near-duplicates spread out:
     * modules/search/recall-ranking.ts); "search" — the search's own order for the whole message
     * (BM25, or BM25 + vectors fused).
     */
    ranking: z.enum(["recall", "cues", "search"]).default("recall"),
    /**
     * Pseudo-relevance feedback (RM3-style, SearchOptions.feedback): search again with the telling
     * terms of the first pass's best hits added. `true`: 10 terms of the top 5 hits, the best at
     * weight 0.5 of a query term; an object sets them. Off by default: on conversations people
     * wrote it lost points at every budget (BENCHMARKS.md, the ablation).
     */
    feedback: z
      .union([
        z.boolean(),
        z
          .object({
            docs: z.number().int().positive().max(50).optional(),
            terms: z.number().int().positive().max(100).optional(),
            weight: z.number().gt(0).max(1).optional(),
          })
          .strict(),
      ])
      .default(false),
    /**
     * Date parts (issue 30): a question naming a month, weekday, year or a day with its month also
     * searches the turns dated so (`metadata.timestamp`), and such turns score higher — as if each
     * turn were indexed under its session's date words (modules/strategies/recall-scoring.ts).
     */
    dates: z.boolean().default(false),
    /**
     * Speaker / entity priors (issue 30): a question naming a participant (a speaker `name`) or an
     * entity (a capitalised word) favours that speaker's turns and the turns mentioning it; the
     * named speaker's turns are also searched apart (across sessions).
     */
    entities: z.boolean().default(false),
    /**
     * Score smoothing along the conversation (issue 30): a turn's score plus this fraction of its
     * best neighbour's (±1, same session); 0: off. Default 0.5 (gained on both development sets at every budget).
     */
    smoothing: z.number().min(0).max(1).default(0.5),
    /**
     * Context around the strongest hits only (issue 30): the best `hits` hits are placed with their
     * neighbours ±1 … ±`radius` first, then further hits as single turns (no neighbours) while the
     * budget lasts, then — for a question reaching into the past — wider neighbours of the best
     * hits (`rest: "neighbours"`: the further hits get ±1 after they are all placed). `false`: every
     * hit first, then ±1 around each (the behaviour before).
     */
    /**
     * With an embedder (issue 30): how the search combines BM25 and the vectors. "zscore" (default)
     * — each side's scores standardised over the candidates and summed, the dense side ×
     * `denseWeight` (modules/search/score-mixing.ts); "rrf" — reciprocal rank fusion of the two
     * rankings. Without an embedder both are plain BM25. z-score beat RRF with embedder-local on
     * both development splits at 2k and 4k (REALTALK +0.2/+0.7, QMSum +2.0/+1.0 points; at 8k
     * +0.7 and −0.5 — BENCHMARKS.md, the ablation).
     */
    mixing: z.enum(["rrf", "zscore"]).default("zscore"),
    /** Weight of the dense side in "zscore" mixing (BM25's is 1). Default 1. */
    denseWeight: z.number().min(0).max(10).default(1),
    focus: z
      .union([
        z.literal(false),
        z
          .object({
            hits: z.number().int().positive().max(100).default(3),
            radius: z.number().int().min(1).max(6).default(2),
            /** After the best hits' context: further hits as single turns ("single"), or with ±1 each once they are placed ("neighbours"). */
            rest: z.enum(["single", "neighbours"]).default("single"),
            /** Budgets (tokens) above this place every hit first, then ±1 around each (at 8k that won on both development sets). */
            maxBudget: z.number().int().positive().optional(),
          })
          .strict(),
      ])
      .default({ hits: 3, radius: 2, rest: "neighbours", maxBudget: FOCUS_MAX_BUDGET }),
  })
  .strict();
export type RecallOptions = z.output<typeof recallOptions>;

/**
 * Switches for measuring what each part of recall earns (the eval's ablation rows); not config: a
 * session's recall always runs with every part on (the default, `{}`).
 */
export interface RecallTuning {
  /** Ranking rules of rankForRecall left out. */
  readonly rankingOff?: readonly RankingRule[];
  /** Ranking rules of rankForRecall added to those of the ranking. */
  readonly rankingOn?: readonly RankingRule[];
  /** No adaptive share: recall always gets `share` of the budget. */
  readonly fixedShare?: boolean;
  /** Hits without their neighbouring units. */
  readonly noNeighbours?: boolean;
  /** Hits with their nearest neighbours only (±1), never the wider ones. */
  readonly narrow?: boolean;
  /** Hits without their session's date header. */
  readonly noHeaders?: boolean;
  /** The whole message is the query, not its question clauses. */
  readonly wholeMessage?: boolean;
  /** Every new prompt gets a new plan, even a request, or a question whose best hits the window holds (the behaviour before prompts kept their plan). */
  readonly replanEveryPrompt?: boolean;
  /** Pseudo-relevance feedback for the search (overrides the `feedback` option; `false`: none). */
  readonly feedback?: SearchFeedback | false;
  /** The strategy's own index with these options instead of the context module's (ablation of index features). */
  readonly index?: HistorySearchIndexOptions;
  /**
   * Every request rebuilds the split, counts units afresh and selects the output in one pass over
   * the whole input (an array implementation: O(history) per request) — the
   * reference the incremental state is proven equal to (modules/strategies/test/recall-incremental.test.ts).
   */
  readonly fromScratch?: boolean;
}

/** Hits asked for when `k` is unset: one per AUTO_K_TOKENS of the recall budget, within [8, 100]. */
export const AUTO_K_TOKENS = 50;
export function autoK(recallBudget: number): number {
  return Math.max(8, Math.min(100, Math.round(recallBudget / AUTO_K_TOKENS)));
}

/** Share of the budget the output may fill (below the assembler's default compactThreshold). */
export const RECALL_FILL = 0.85;
/** A new plan fills this share of what RECALL_FILL allows; it is kept while the window grows into the rest. */
export const RECALL_STEP = 0.8;
/**
 * Share of the budget a window may fill when the question reaches into the past: up to
 * just below the assembler's default compactThreshold (0.9). The 0.05 RECALL_FILL leaves is
 * hysteresis for a plan kept while the history grows; a reaching-back plan is made for its
 * question. What it gives up: request-only `extraMessages` (not seen by the pipeline) have 0.01 of
 * the budget before the assembler cuts such a window, instead of 0.05.
 */
export const RECALL_FILL_BACK = 0.89;
/** Share of the plan (RECALL_STEP × available) the exchange before a reaching-back question may keep. */
export const RECALL_EXCHANGE = 1 / 16;

/** Which units a window keeps besides the critical ones: every unit from `from` on, and `older` (recalled, a prompt). */
interface Plan {
  readonly from: number;
  readonly older: readonly number[];
  /** Units brought back by the search (marked `metadata.recalled`). */
  readonly recalled: ReadonlySet<number>;
  /** Input position → explain reason of a recalled message. */
  readonly reasons: ReadonlyMap<number, string>;
  /** False when the search was skipped (index still catching up): such a plan is never reused. */
  readonly searched: boolean;
}

export class RecallStrategy implements CompactionStrategy, IncrementalStrategy {
  readonly name = "recall";
  #units: HistoryUnits | undefined;
  /** Bumped whenever the split is rewritten or rebuilt (not when it only grows): plans and hits are only reused within one. */
  #generation = 0;
  readonly #cursor = new LogCursor();
  readonly #arrays = new ArraySource();
  #tokens = new UnitTokenMemo();
  /** fromScratch: input message → its marked copy. */
  readonly #marked = new WeakMap<Message, Message>();
  readonly #output = new RecallOutput();
  /** Per unit: the nearest session date header at or before it (−1: none), filled as far as asked. */
  readonly #headers: number[] = [];
  readonly #flags = new UnitFlags();
  #input: readonly Message[] = [];
  #transient: HistorySearchIndex | undefined;
  #cache: { generation: number; query: string; before: string | number; hits: RankedHit[]; wanted: number } | undefined;
  #speakerNames: { messages: Message | undefined; count: number; names: Set<string> } | undefined;
  #sticky: (Plan & { generation: number; query: string | undefined; available: number; selection: Selection }) | undefined;

  constructor(
    readonly options: RecallOptions,
    readonly tuning: RecallTuning = {},
  ) {}

  /** The array API: the same messages as the incremental step over `messages`. */
  async compact(messages: readonly Message[], context: CompactionContext): Promise<readonly Message[]> {
    return (await this.compactLog(this.#arrays.set(messages), context)).output.items.slice();
  }

  resetLog(): void {
    // The split and the plan stay (the next sync compares the input with the split by reference,
    // as the array API always did); the output is re-examined in full.
    this.#cursor.reset();
    this.#output.reset();
  }

  /**
   * One request: O(new messages + window + hits), never O(history) — the split grows
   * with the input, unit tokens are counted once (UnitTokenMemo), the plan is kept while it holds,
   * and the output log is rewritten only from its first changed message (recall-output.ts).
   */
  async compactLog(input: MessageSource, context: CompactionContext): Promise<LogStep> {
    const { counter, explain } = context;
    const { units, unchanged } = this.tuning.fromScratch ? this.#rebuild(input) : this.#sync(input);
    const messages = (this.#input = units.messages);
    const n = units.length;
    const tokensOf = this.#tokens.sync(units, counter);
    let fixed = counter.replyPriming + (context.tools?.length ? counter.countTools(context.tools) : 0);
    for (const p of units.index.instructions) fixed += counter.countMessage(messages[p]!);
    for (const u of units.index.criticalUnits) fixed += tokensOf(u);
    const available = Math.max(0, Math.floor(context.budget * RECALL_FILL) - fixed);
    let selection = KEEP_ALL;
    if (n > 0 && !fitsWhole(units, tokensOf, available)) {
      const query = this.#queryText(units);
      const sticky = this.#stickyPlan(units, query, tokensOf, available) ?? (await this.#stickyForNewPrompt(units, messages, query, tokensOf, available, context));
      const plan = sticky ?? (await this.#plan(units, messages, query, tokensOf, available, fixed, context));
      // A kept plan keeps its selection object: the output sees "nothing changed" without comparing.
      selection = sticky ? this.#sticky!.selection : { all: false, from: plan.from, recentStart: units.units[plan.from]?.firstStored ?? messages.length, older: plan.older, recalled: plan.recalled };
      this.#sticky = { ...plan, generation: this.#generation, query, available, selection };
    }
    const dropReason = explain.enabled ? "neither in the recent window nor recalled for the query" : "";
    const reasons = this.#sticky?.reasons;
    if (this.tuning.fromScratch) {
      const out = selectFromScratch(units, selection, this.#marked, explain.enabled ? { dropped: (m, i) => explain.record(messageId(m, i), "dropped", this.name, dropReason), recalled: (m, i) => explain.record(messageId(m, i), "kept", this.name, reasons?.get(i) ?? "recalled") } : undefined);
      return { output: new HistorySource(out), changed: differs(input.items, out) };
    }
    this.#output.update(
      units,
      selection,
      unchanged,
      explain.enabled
        ? {
            dropped: (m, i) => explain.record(messageId(m, i), "dropped", this.name, dropReason),
            recalled: (m, i) => explain.record(messageId(m, i), "kept", this.name, reasons?.get(i) ?? "recalled"),
          }
        : undefined,
    );
    return { output: this.#output.log, changed: this.#output.changed };
  }

  /** fromScratch: a new split of the whole input; a new generation unless the input extends the previous one (the array implementation's rule). */
  #rebuild(input: MessageSource): { units: HistoryUnits; unchanged: number } {
    const items = input.items;
    const previous = this.#units?.messages;
    if (previous === undefined || items.length < previous.length || previous.some((m, i) => items[i] !== m)) this.#generation++;
    this.#headers.length = 0;
    this.#tokens = new UnitTokenMemo();
    return { units: (this.#units = new HistoryUnits(items)), unchanged: 0 };
  }

  /**
   * The split of the input, grown with it. A rewrite (the input no longer starts with the
   * messages split so far — compared by reference from the first position the cursor reports,
   * so another array holding the same messages is no rewrite) rolls the split back to the first
   * difference and starts a new generation. Returns the split and the input positions below which
   * nothing changed.
   */
  #sync(input: MessageSource): { units: HistoryUnits; unchanged: number } {
    const items = input.items;
    let units = this.#units;
    let same = this.#cursor.next(input);
    if (units !== undefined) {
      const split = units.messages;
      const end = Math.min(split.length, items.length);
      while (same < end && items[same] === split[same]) same++;
    }
    if (units === undefined || (same === 0 && units.messages.length > 0)) {
      units = this.#units = new HistoryUnits(items);
      this.#generation++;
      this.#headers.length = 0;
      return { units, unchanged: 0 };
    }
    const rewritten = same < units.messages.length;
    if (rewritten) {
      units.truncate(same);
      this.#generation++;
    }
    units.grow(items, units.messages.length, rewritten);
    if (this.#headers.length > units.lowestChanged) this.#headers.length = units.lowestChanged;
    return { units, unchanged: same };
  }

  /**
   * The previous plan, while the history only grew, the query is the same and the window still
   * fits: the recent part keeps its start (hysteresis — the window's prefix, and the provider's
   * prompt cache, stay put) and no search is made.
   */
  #stickyPlan(units: HistoryUnits, query: string | undefined, tokensOf: (u: number) => number, available: number): Plan | undefined {
    return this.#sticky?.query === query ? this.#stillFits(units, tokensOf, available) : undefined;
  }

  /**
   * A new prompt keeps the previous plan (its window still fits, the history only grew) unless it
   * asks for something that window does not hold (agent sessions must not pay for
   * recall). Each new plan moves the recent part's start and swaps recalled messages right after
   * the instructions, so the provider's cached prefix ends at the instructions; in an agent
   * session most prompts are requests about the current work, which the recent part already
   * holds. So: a request (no question clause, recall-query.ts) keeps the plan without a search; a
   * question keeps it when its best STICKY_HITS hits are all in the window already (recent,
   * recalled or critical); otherwise — a question reaching for something the window lacks — it
   * gets a new plan. With `tuning.replanEveryPrompt` every new prompt is planned anew (before).
   */
  async #stickyForNewPrompt(units: HistoryUnits, messages: readonly Message[], query: string | undefined, tokensOf: (u: number) => number, available: number, context: CompactionContext): Promise<Plan | undefined> {
    if (this.tuning.replanEveryPrompt || query === undefined) return undefined;
    const sticky = this.#stillFits(units, tokensOf, available);
    if (!sticky) return undefined;
    if (questionClauses(query).length === 0) return sticky;
    const before = searchBoundary(units, messages);
    if (before === 0) return sticky;
    const hits = await this.#hits(query, messages, before, context.search, units, available);
    // The index is catching up: a new plan would be made without hits anyway.
    if (hits === undefined) return sticky;
    const positionOf = positionLookup(messages);
    const older = new Set(sticky.older);
    for (const { hit } of hits.slice(0, STICKY_HITS)) {
      const p = positionOf(hit);
      const u = p === undefined ? -1 : units.unitOf[p]!;
      if (u < 0) continue; // an instruction: always in the window
      if (u < sticky.from && !older.has(u) && !units.units[u]!.critical) return undefined;
    }
    return sticky;
  }

  /** The previous plan, when it was made over this history (it only grew since), for this budget, and its window still fits `available`. */
  #stillFits(units: HistoryUnits, tokensOf: (u: number) => number, available: number): Plan | undefined {
    const sticky = this.#sticky;
    if (!sticky || !sticky.searched || sticky.generation !== this.#generation || sticky.available !== available || sticky.from >= units.length) return undefined;
    let total = 0;
    for (const u of sticky.older) if (!units.units[u]!.critical) total += tokensOf(u);
    for (let u = units.length - 1; u >= sticky.from; u--) {
      if (units.units[u]!.critical) continue;
      total += tokensOf(u);
      if (total > available) return undefined;
    }
    return sticky;
  }

  /**
   * A new plan, filling STEP of the available budget: the recent part, recall, then what recall
   * left back to the recent part. The recent part first takes (1 − share); when the query is a
   * question whose best hit is older than that recent part (it reaches into the past), the recent
   * part shrinks to the current turn and the exchange before it, and recall may take the rest.
   */
  async #plan(units: HistoryUnits, messages: readonly Message[], query: string | undefined, tokensOf: (u: number) => number, available: number, fixed: number, context: CompactionContext): Promise<Plan> {
    const n = units.length;
    const { explain } = context;
    const tuning = this.tuning;
    const target = available * RECALL_STEP;
    // --- the recent part: newest units, contiguous, the current turn always --------------------
    // Units kept so far (a reused scratch: no array of the history's size per plan).
    const keep = this.#flags.reset(n);
    for (const u of units.index.criticalUnits) keep.add(u);
    const recentCut = (budget: number): { cut: number; used: number } => {
      let used = 0;
      let cut = n;
      for (let u = n - 1; u >= 0; u--) {
        if (units.units[u]!.critical) continue;
        const t = tokensOf(u);
        if (used + t > budget && cut < n) break;
        used += t;
        cut = u;
        if (used > budget) break; // the newest unit alone is over: kept anyway (the assembler truncates)
      }
      return { cut, used };
    };
    let { cut, used } = recentCut(target * (1 - this.options.share));
    const starts = units.index.turnStarts;
    const currentTurn = starts.length > 0 ? starts[starts.length - 1]! : n;
    const searchBefore = searchBoundary(units, messages);

    // --- recall -------------------------------------------------------------------------------
    const recalled = new Set<number>();
    const reasons = new Map<number, string>();
    const older: number[] = [];
    let recallUsed = 0;
    let searched = true;
    let recallBudget = target * this.options.share;
    // Candidates for the most recall may take (the available budget): one search, whatever the share turns out to be.
    const found = query !== undefined && searchBefore > 0 ? await this.#hits(query, messages, searchBefore, context.search, units, available) : [];
    searched = found !== undefined;
    const hits = found ?? [];
    const positionOf = positionLookup(messages);
    const reachesBack = hits.length > 0 && !tuning.fixedShare && this.#reachesBack(query!, hits[0]!, positionOf, units, cut);
    let widened = false;
    if (reachesBack) {
      // The question reaches into the past: the recent part is the current turn and the exchange
      // before it — as much of that exchange, newest first, as fits RECALL_EXCHANGE of the plan
      // (at small budgets every token the exchange takes is one recall cannot use).
      const lastExchange = starts.length > 1 ? starts[starts.length - 2]! : currentTurn;
      const minimal = recentCut(0);
      let c = minimal.cut;
      let u2 = minimal.used;
      for (let u = c - 1; u >= lastExchange && u >= 0; u--) {
        if (units.units[u]!.critical) continue;
        const t = tokensOf(u);
        if (u2 + t > target * RECALL_EXCHANGE) break;
        u2 += t;
        c = u;
      }
      if (c > cut) {
        cut = c;
        used = u2;
        widened = true;
      }
    }
    for (let u = cut; u < n; u++) keep.add(u);
    let firstRecent = units.units[cut]?.firstStored ?? messages.length;
    if (units.units[cut]?.kind !== "turn") {
      const prompt = units.turnBefore(cut);
      if (prompt !== undefined && !keep.has(prompt)) {
        keep.add(prompt);
        older.push(prompt);
        firstRecent = Math.min(firstRecent, units.units[prompt]!.firstStored);
        if (!units.units[prompt]!.critical) used += tokensOf(prompt);
      }
    }
    // No hysteresis step for a question reaching back: the plan is made for this question (its
    // recalled part changes with the next one anyway), so it may fill up to RECALL_FILL_BACK of the
    // budget. Computed after the recent part is final (the prompt of a turn cut in its middle
    // included), so the window never passes that bound.
    if (widened) recallBudget = Math.max(0, Math.floor(context.budget * RECALL_FILL_BACK) - fixed - used);
    if (firstRecent > 0 && hits.length > 0) {
      const limit = this.options.k ?? Infinity;
      let picked = 0;
      const place = (x: number): boolean => {
        if (keep.has(x) || units.units[x]!.critical) return true;
        const cost = tokensOf(x);
        if (recallUsed + cost > recallBudget) return false;
        keep.add(x);
        recalled.add(x);
        recallUsed += cost;
        return true;
      };
      // Pass 1 — the hits themselves (each with the prompt of its turn and its session's date
      // header), best first, up to k. Pass 2 — their neighbours (the unit after, then the one
      // before), best first, while the budget lasts: a long reply to hit 1 must not crowd out hits 2 … k.
      const extras: { after: number; before: number; header: number | undefined; hitAt: number; why: string }[] = [];
      const focus = this.options.focus && (this.options.focus.maxBudget === undefined || context.budget <= this.options.focus.maxBudget) ? this.options.focus : false;
      let next = 0;
      const placeHits = (upTo: number) => {
      for (; next < hits.length; next++) {
        const { hit, notes } = hits[next]!;
        if (picked >= Math.min(limit, upTo)) break;
        const p = positionOf(hit);
        if (p === undefined || p >= firstRecent) continue;
        const u = units.unitOf[p]!;
        if (u < 0 || keep.has(u)) continue;
        const unit = units.units[u]!;
        // A tool group needs the prompt of its turn (what was being done); a plain message's
        // context is its neighbours (pass 2).
        const prompt = unit.kind === "turn" ? u : unit.kind === "group" ? units.turnBefore(u) : undefined;
        const core = [...new Set(prompt === undefined ? [u] : [prompt, u])].filter((x) => !keep.has(x) && !units.units[x]!.critical);
        const coreCost = core.reduce((sum, x) => sum + tokensOf(x), 0);
        if (recallUsed + coreCost > recallBudget) continue;
        for (const x of core) place(x);
        picked++;
        const why = explain.enabled ? `recalled for the query (${hit.terms?.length ? `terms ${hit.terms.join(", ")}; ` : ""}score ${hit.score.toFixed(3)}${notes.length ? `; ${notes.join(", ")}` : ""})` : "";
        if (explain.enabled) for (const x of core) for (const q of units.positions(x)) reasons.set(q, q === p ? why : `recalled with ${hit.id}, the hit of its exchange (${why})`);
        const header = tuning.noHeaders ? undefined : headerBefore(this.#headers, units, u);
        extras.push({ after: Math.max(u, prompt ?? u), before: Math.min(u, prompt ?? u), header, hitAt: p, why });
      }
      };
      placeHits(focus ? focus.hits : Infinity);
      // Pass 2 — the neighbours (the unit after, then the one before); pass 3 — the session date
      // headers (one per session); then, for a question reaching into the past and while the
      // budget lasts, wider neighbours that are not tool groups (±2 … ±WIDE_NEIGHBOURS: a question
      // the hits did not use the budget for is still about their conversation).
      const neighbours = (radius: number, of = extras) => {
        for (const { after, before, hitAt, why } of of) {
          for (const x of [after + radius, before - radius]) {
            // The wider context is the conversation around a hit, not tool output (which would
            // also cost its counting: tool results are the long messages).
            if (x < 0 || x >= cut || keep.has(x) || (radius > 1 && units.units[x]!.kind === "group") || !place(x)) continue;
            if (explain.enabled) for (const q of units.positions(x)) reasons.set(q, `recalled with ${messageId(messages[hitAt]!, hitAt)}, a neighbour of the hit (${why})`);
          }
        }
      };
      // With `focus`: the best hits' context (±1 … ±radius) first, then further hits as single turns.
      const top = extras.slice();
      if (focus) {
        if (!tuning.noNeighbours) for (let radius = 1; radius <= focus.radius; radius++) neighbours(radius, top);
        placeHits(Infinity);
        if (focus.rest === "neighbours" && !tuning.noNeighbours) neighbours(1);
      } else if (!tuning.noNeighbours) neighbours(1);
      for (const { header, hitAt, why } of extras) {
        if (header === undefined || keep.has(header) || !place(header)) continue;
        if (explain.enabled) for (const q of units.positions(header)) reasons.set(q, `recalled with ${messageId(messages[hitAt]!, hitAt)}: the date header of its session (${why})`);
      }
      if (!tuning.noNeighbours && !tuning.narrow && reachesBack) {
        if (focus) for (let radius = focus.radius + 1; radius <= WIDE_NEIGHBOURS; radius++) neighbours(radius, top);
        else for (let radius = 2; radius <= WIDE_NEIGHBOURS; radius++) neighbours(radius);
      }
    }

    // --- the window opens with a user turn: a recalled reply or neighbour placed without its
    // prompt (context taken before a hit, a smoothed neighbour) gets the prompt of its turn, or is
    // left out when that does not fit.
    for (;;) {
      let first = -1;
      for (const u of recalled) if (first < 0 || u < first) first = u;
      if (first < 0 || units.units[first]!.kind === "turn") break;
      const prompt = units.turnBefore(first);
      if (prompt !== undefined && !keep.has(prompt) && !units.units[prompt]!.critical && recallUsed + tokensOf(prompt) <= recallBudget) {
        keep.add(prompt);
        recalled.add(prompt);
        recallUsed += tokensOf(prompt);
        if (explain.enabled) for (const q of units.positions(prompt)) reasons.set(q, "recalled as the prompt of the turn of a recalled message");
        break;
      }
      if (prompt !== undefined && keep.has(prompt)) break;
      keep.delete(first);
      recalled.delete(first);
      recallUsed -= tokensOf(first);
      for (const q of units.positions(first)) reasons.delete(q);
    }

    // --- what recall left goes back to the recent part: whole older turns while they fit -----
    let left = target - used - recallUsed;
    let t = starts.length - 1;
    while (t >= 0 && starts[t]! >= cut) t--;
    let from = cut;
    for (; t >= 0; t--) {
      const start = starts[t]!;
      let cost = 0;
      for (let u = start; u < from; u++) if (!keep.has(u) && !units.units[u]!.critical) cost += tokensOf(u);
      if (cost > left) break;
      left -= cost;
      for (let u = start; u < from; u++) {
        keep.add(u);
        recalled.delete(u);
      }
      from = start;
    }
    for (const u of recalled) if (u < from) older.push(u);
    for (const u of [...recalled]) if (u >= from) recalled.delete(u);
    return { from, older: older.filter((u) => u < from), recalled, reasons, searched };
  }

  /**
   * True when the query asks something (a question clause, or a request to be reminded) and its
   * best hit is older than where the default recent part starts: what it asks about is in the past.
   */
  #reachesBack(query: string, best: RankedHit, positionOf: (hit: SearchHit) => number | undefined, units: HistoryUnits, cut: number): boolean {
    if (questionClauses(query).length === 0) return false;
    const p = positionOf(best.hit);
    if (p === undefined) return false;
    const u = units.unitOf[p]!;
    return u >= 0 && u < cut;
  }

  #queryText(units: HistoryUnits): string | undefined {
    const messages = units.messages;
    if (this.options.query === "last-user") {
      const starts = units.index.turnStarts;
      if (starts.length === 0) return undefined;
      // The user message of the turn (its last member: hook notes stored before it come first).
      return this.#refine(searchableText(messages[units.units[starts[starts.length - 1]!]!.prompt!.stored]!));
    }
    for (let i = messages.length - 1; i >= 0; i--) if (units.unitOf[i] !== INSTRUCTION) return this.#refine(searchableText(messages[i]!));
    return undefined;
  }

  /** With ranking "recall": the question clauses of a message that asks something among other things. */
  #refine(text: string): string {
    return this.options.ranking !== "search" && !this.tuning.wholeMessage ? recallQuery(text).text : text;
  }

  /** Speaker names of the input's conversation turns (grown with the input; rebuilt when it was replaced). */
  #speakers(messages: readonly Message[]): ReadonlySet<string> {
    let known = this.#speakerNames;
    if (known === undefined || known.messages !== messages[0] || known.count > messages.length) known = this.#speakerNames = { messages: messages[0], count: 0, names: new Set() };
    for (let i = known.count; i < messages.length; i++) {
      const s = speakerOf(messages[i]!);
      if (s !== undefined) known.names.add(s).add(s.split(" ")[0]!);
    }
    known.count = messages.length;
    return known.names;
  }

  /** Hits for the query before `firstRecent`, best first (as many as `recallBudget` asks for); undefined when the index is still catching up (not waited for). */
  async #hits(query: string, messages: readonly Message[], firstRecent: number, search: HistorySearch | undefined, units: HistoryUnits, recallBudget: number): Promise<RankedHit[] | undefined> {
    const id = messages[firstRecent]?.metadata?.id;
    if (this.tuning.index) search = undefined;
    const source = search ?? (this.#transient ??= new HistorySearchIndex(() => this.#input, { module: this.name, ...this.tuning.index }));
    const wanted = this.options.k !== undefined ? this.options.k * 3 : autoK(recallBudget);
    // Positions of the strategy's input are only meaningful to an index over that input.
    const before: string | number = search && typeof id === "string" ? id : firstRecent;
    // A large backlog (resume, replaced history): index in the background, this window goes without hits.
    if (source.ready?.() === false) {
      source.warm?.();
      return undefined;
    }
    const cache = this.#cache;
    if (cache && cache.generation === this.#generation && cache.query === query && cache.before === before && cache.wanted >= wanted) return cache.hits;
    const option = this.options.feedback;
    const feedback = this.tuning.feedback ?? (option === true ? {} : option === false ? undefined : option);
    const { mixing, denseWeight } = this.options;
    const searchOptions = { before, filter: { role: ["user", "assistant", "tool"] as Message["role"][] }, ...(feedback ? { feedback } : {}), ...(mixing === "zscore" ? { mixing, denseWeight } : {}) };
    let hits: RankedHit[] = await recallCandidates(source, query, wanted, this.options.ranking, searchOptions, { off: this.tuning.rankingOff, on: this.tuning.rankingOn });
    const { dates, entities, smoothing } = this.options;
    if (dates || entities || smoothing > 0) {
      hits = await rescore(hits, query, { dates, entities, smoothing }, { source, searchOptions, wanted, messages, positionOf: positionLookup(messages), speakers: () => this.#speakers(messages) });
    }
    this.#cache = { generation: this.#generation, query, before, hits, wanted };
    return hits;
  }
}

/** Where the current turn starts: hits are searched before it (the prompt is never a hit). */
function searchBoundary(units: HistoryUnits, messages: readonly Message[]): number {
  const starts = units.index.turnStarts;
  const currentTurn = starts.length > 0 ? starts[starts.length - 1]! : units.length;
  return units.units[currentTurn]?.firstStored ?? messages.length;
}

/** Hits of a new prompt's question that must already be in the window for the previous plan to be kept (#stickyForNewPrompt). */
export const STICKY_HITS = 3;

/** Neighbours of a hit taken at most on each side when the budget lasts (±1 always first). */
export const WIDE_NEIGHBOURS = 6;

/** The unit of the session date header nearest before unit `u` (modules/search/session-header.ts), if any. O(1) after `table` covers `u`. */
function headerBefore(table: number[], units: HistoryUnits, u: number): number | undefined {
  for (let x = table.length; x < u; x++) {
    const unit = units.units[x]!;
    const prompt = unit.kind === "turn" ? unit.prompt : undefined;
    table.push(prompt && prompt.stored >= 0 && isSessionHeader(units.messages[prompt.stored]!) ? x : x > 0 ? table[x - 1]! : -1);
  }
  const at = u > 0 ? table[u - 1]! : -1;
  return at >= 0 ? at : undefined;
}

/** fromScratch: the selection's messages in one pass over every input position (the array implementation). */
function selectFromScratch(units: HistoryUnits, selection: Selection, marked: WeakMap<Message, Message>, explain: OutputExplain | undefined): Message[] {
  const messages = units.messages;
  if (selection.all) return [...messages];
  const keep = new Uint8Array(units.length);
  for (const u of units.index.criticalUnits) keep[u] = 1;
  for (let u = selection.from; u < units.length; u++) keep[u] = 1;
  for (const u of selection.older) keep[u] = 1;
  const out = units.select(keep, selection.recentStart, explain?.dropped);
  if (selection.recalled.size === 0) return out;
  let position = 0;
  return out.map((m) => {
    while (messages[position] !== m) position++;
    const u = units.unitOf[position]!;
    const at = position++;
    if (u < 0 || !selection.recalled.has(u)) return m;
    explain?.recalled(m, at);
    let copy = marked.get(m);
    if (!copy) marked.set(m, (copy = { ...m, metadata: { ...m.metadata, recalled: true } } as Message));
    return copy;
  });
}

/** A set of units as flags over a scratch array reused between plans: cleared in O(units set), grown by doubling. */
class UnitFlags {
  #flags = new Uint8Array(64);
  readonly #set: number[] = [];

  /** Empty, with room for `n` units. */
  reset(n: number): this {
    for (const u of this.#set) this.#flags[u] = 0;
    this.#set.length = 0;
    if (n > this.#flags.length) this.#flags = new Uint8Array(Math.max(n, this.#flags.length * 2));
    return this;
  }

  has(u: number): boolean {
    return this.#flags[u] === 1;
  }

  /** Unsets `u` (it stays listed for the next reset, which clears it again: harmless). */
  delete(u: number): void {
    this.#flags[u] = 0;
  }

  add(u: number): void {
    if (this.#flags[u] === 1) return;
    this.#flags[u] = 1;
    this.#set.push(u);
  }
}

/** True when every unit fits `available` (walks back from the newest: O(window), not O(history)). */
function fitsWhole(units: HistoryUnits, tokensOf: (u: number) => number, available: number): boolean {
  let used = 0;
  for (let u = units.length - 1; u >= 0; u--) {
    if (units.units[u]!.critical) continue;
    used += tokensOf(u);
    if (used > available) return false;
  }
  return true;
}

/** A hit's position in `messages`: its stored index when the ids agree there, else by id. */
function positionLookup(messages: readonly Message[]): (hit: SearchHit) => number | undefined {
  let byId: Map<string, number> | undefined;
  return (hit) => {
    // idOf answers from a stored message's facts: a packed message (cold-history) is not parsed to be found.
    const at = messages[hit.index];
    if (at !== undefined && (idOf(at) === hit.id || hit.id === `#${hit.index}`)) return hit.index;
    if (!byId) {
      byId = new Map();
      messages.forEach((m, i) => {
        const id = idOf(m);
        if (id !== undefined && !byId!.has(id)) byId!.set(id, i);
      });
    }
    return byId.get(hit.id);
  };
}

export const recallStrategy = defineStrategy({
  name: "recall",
  description: "the best search hits for the latest user message (with their exchange) after the system messages, then the recent window",
  optionsSchema: recallOptions,
  create: (options) => new RecallStrategy(options),
});
