/**
 * `recall` {k = 8, share = 0.4, query = "last-user"}: search + recent (Steamship memory seed) as a
 * strategy. Old turns that match the current question come back into the window; the rest of the
 * budget is the usual recent window. Model-free by default (BM25 over the stored history,
 * modules/search); hybrid when the context module has an embedder.
 *
 * Output, in stored order (every message an input object, recalled ones as marked copies):
 *
 * | part             | what                                                                                     |
 * |------------------|------------------------------------------------------------------------------------------|
 * | instructions     | every system / developer message that is not a hook turn note (as every strategy); notes are conversation, recalled and cut with their turn |
 * | recalled         | for each of the best ≤ k hits older than the recent part: the hit's unit, the user prompt of its turn, and — when the hit is a prompt or a tool group and the share allows once every hit is placed — the unit answering it; `metadata.recalled = true` |
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
 * they fit). The plan is kept — same start, same recalled messages, no new search — while the
 * history only grows, the query is the same and the window still fits `available` (hysteresis:
 * a stable prefix for the provider's prompt cache, O(window) per request). A unit is kept whole
 * (a tool result never without its call, history-units.ts) or not at all. When the whole history
 * fits, the input is returned unchanged.
 *
 * Query: `last-user` — the text of the latest user turn (the current prompt; never a hit itself,
 * hits are searched before the recent part); `last-message` — the newest non-instruction message
 * (in an agent loop, the latest tool result). With `ranking: "recall"` (default) a message that
 * asks something among other things is searched by its question clauses only
 * (modules/search/recall-query.ts), and a pool of max(80, 10 × 3k) hits is reordered by
 * rankForRecall (modules/search/recall-ranking.ts: tool output down, answer type — name, date,
 * number, decision, preference — up, revisions up for questions about the current state, a hit
 * matched only by its own question down, maximal marginal relevance); `ranking: "search"` takes
 * the search's top 3k for the whole message. Hits are placed best first, each with the prompt of
 * its turn, up to k; the units answering them (the reply to a prompt, the next step after a tool
 * group) come second, best first, while the share lasts. Hits come from `context.search` (the context
 * module's incremental index over the stored history), else from an index this strategy keeps
 * over its input (extended while the input only grows). While the query and the recent part's
 * start do not change and the history only grows, the previous hits are reused (a loop of tool
 * calls under one prompt searches once). When the index has a large backlog to catch up on (a
 * resumed or replaced history of more than 5,000 messages not indexed yet), the window goes
 * without recalled messages while the index is built in the background, in chunks — the first
 * window after resume is never blocked by the build; `await context.searchIndex.catchUp()` makes
 * it ready up front.
 *
 * Explain: recalled messages "kept" by "recall" with the matched query terms and score; messages
 * neither recent nor recalled "dropped".
 */
import { z } from "zod";
import type { CompactionContext, CompactionStrategy } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { HistorySearch, SearchHit } from "@amplifier-ts/contracts";
import { HistorySearchIndex } from "@amplifier-ts/search";
import { searchableText } from "@amplifier-ts/search";
import { recallQuery } from "@amplifier-ts/search";
import { recallCandidates, type RankedHit } from "@amplifier-ts/search";
import { HistoryUnits, INSTRUCTION, messageId } from "./history-units.js";
import { defineStrategy } from "@amplifier-ts/contracts";

export const recallOptions = z
  .object({
    /** Hits recalled at most (each with its exchange). */
    k: z.number().int().positive().max(100).default(8),
    /** Share of the available budget recalled messages may take. */
    share: z.number().gt(0).lt(1).default(0.4),
    /** What to search for: the latest user turn, or the newest message. */
    query: z.enum(["last-user", "last-message"]).default("last-user"),
    /**
     * How hits are ordered: "recall" — the question clauses of the message are the query, a
     * larger pool of hits is reordered (tool output down, messages holding the asked-for answer
     * type up, near-duplicates spread out: modules/search/recall-ranking.ts); "search" — the
     * search's own order for the whole message (BM25, or BM25 + vectors fused).
     */
    ranking: z.enum(["recall", "search"]).default("recall"),
  })
  .strict();
export type RecallOptions = z.output<typeof recallOptions>;

/** Share of the budget the output may fill (below the assembler's default compactThreshold). */
export const RECALL_FILL = 0.85;
/** A new plan fills this share of what RECALL_FILL allows; it is kept while the window grows into the rest. */
export const RECALL_STEP = 0.8;

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

export class RecallStrategy implements CompactionStrategy {
  readonly name = "recall";
  #units: HistoryUnits | undefined;
  #input: readonly Message[] = [];
  #transient: HistorySearchIndex | undefined;
  #cache: { units: HistoryUnits["index"]; query: string; before: string | number; hits: RankedHit[] } | undefined;
  #sticky: (Plan & { index: HistoryUnits["index"]; query: string | undefined; available: number }) | undefined;
  readonly #marked = new WeakMap<Message, Message>();

  constructor(readonly options: RecallOptions) {}

  async compact(messages: readonly Message[], context: CompactionContext): Promise<readonly Message[]> {
    const { counter, explain } = context;
    const units = (this.#units = HistoryUnits.extend(this.#units, messages));
    this.#input = units.messages;
    const n = units.length;
    const memo = new Float64Array(n).fill(-1);
    const tokensOf = (u: number) => {
      if (memo[u]! >= 0) return memo[u]!;
      let t = 0;
      for (const member of units.units[u]!.members) if (member.stored >= 0) t += counter.countMessage(messages[member.stored]!);
      return (memo[u] = t);
    };
    let fixed = counter.replyPriming + (context.tools?.length ? counter.countTools(context.tools) : 0);
    for (const p of units.index.instructions) fixed += counter.countMessage(messages[p]!);
    for (const u of units.index.criticalUnits) fixed += tokensOf(u);
    const available = Math.max(0, Math.floor(context.budget * RECALL_FILL) - fixed);
    if (n === 0 || fitsWhole(units, tokensOf, available)) return [...messages];
    const query = this.#queryText(units);
    const plan = this.#stickyPlan(units, query, tokensOf, available) ?? (await this.#plan(units, messages, query, tokensOf, available, context));
    this.#sticky = { ...plan, index: units.index, query, available };

    const keep = new Uint8Array(n);
    for (const u of units.index.criticalUnits) keep[u] = 1;
    for (let u = plan.from; u < n; u++) keep[u] = 1;
    for (const u of plan.older) keep[u] = 1;
    const orphansFrom = units.units[plan.from]?.firstStored ?? messages.length;
    const dropReason = explain.enabled ? "neither in the recent window nor recalled for the query" : "";
    const out = units.select(keep, orphansFrom, explain.enabled ? (m, i) => explain.record(messageId(m, i), "dropped", this.name, dropReason) : undefined);
    if (plan.recalled.size === 0) return out;
    let position = 0;
    return out.map((m) => {
      while (messages[position] !== m) position++;
      const u = units.unitOf[position]!;
      const at = position++;
      if (u < 0 || !plan.recalled.has(u)) return m;
      if (explain.enabled) explain.record(messageId(m, at), "kept", this.name, plan.reasons.get(at) ?? "recalled");
      // The same copy every time: consecutive outputs then extend each other and the context
      // module's assembler appends instead of rebuilding.
      let copy = this.#marked.get(m);
      if (!copy) this.#marked.set(m, (copy = { ...m, metadata: { ...m.metadata, recalled: true } } as Message));
      return copy;
    });
  }

  /**
   * The previous plan, while the history only grew, the query is the same and the window still
   * fits: the recent part keeps its start (hysteresis — the window's prefix, and the provider's
   * prompt cache, stay put) and no search is made.
   */
  #stickyPlan(units: HistoryUnits, query: string | undefined, tokensOf: (u: number) => number, available: number): Plan | undefined {
    const sticky = this.#sticky;
    if (!sticky || !sticky.searched || sticky.index !== units.index || sticky.query !== query || sticky.available !== available || sticky.from >= units.length) return undefined;
    let total = 0;
    for (const u of sticky.older) if (!units.units[u]!.critical) total += tokensOf(u);
    for (let u = units.length - 1; u >= sticky.from; u--) {
      if (units.units[u]!.critical) continue;
      total += tokensOf(u);
      if (total > available) return undefined;
    }
    return sticky;
  }

  /** A new plan: recent part, recall, then what recall left back to the recent part — filling STEP of the available budget. */
  async #plan(units: HistoryUnits, messages: readonly Message[], query: string | undefined, tokensOf: (u: number) => number, available: number, context: CompactionContext): Promise<Plan> {
    const n = units.length;
    const { explain } = context;
    const target = available * RECALL_STEP;
    // --- the recent part: newest units, contiguous, the current turn always --------------------
    const keep = new Uint8Array(n);
    for (const u of units.index.criticalUnits) keep[u] = 1;
    const recentBudget = target * (1 - this.options.share);
    let used = 0;
    let cut = n;
    for (let u = n - 1; u >= 0; u--) {
      if (units.units[u]!.critical) continue;
      const t = tokensOf(u);
      if (used + t > recentBudget && cut < n) break;
      used += t;
      cut = u;
      if (used > recentBudget) break; // the newest unit alone is over: kept anyway (the assembler truncates)
    }
    for (let u = cut; u < n; u++) keep[u] = 1;
    let firstRecent = units.units[cut]?.firstStored ?? messages.length;
    const older: number[] = [];
    if (units.units[cut]?.kind !== "turn") {
      const prompt = units.turnBefore(cut);
      if (prompt !== undefined && !keep[prompt]) {
        keep[prompt] = 1;
        older.push(prompt);
        firstRecent = Math.min(firstRecent, units.units[prompt]!.firstStored);
        if (!units.units[prompt]!.critical) used += tokensOf(prompt);
      }
    }

    // --- recall -------------------------------------------------------------------------------
    const recalled = new Set<number>();
    const reasons = new Map<number, string>();
    let recallUsed = 0;
    let searched = true;
    if (query !== undefined && firstRecent > 0) {
      const found = await this.#hits(query, messages, firstRecent, context.search, units);
      searched = found !== undefined;
      const hits = found ?? [];
      const recallBudget = target * this.options.share;
      let picked = 0;
      const positionOf = positionLookup(messages);
      // Pass 1 — the hits themselves (each with the prompt of its turn), best first, up to k.
      // Pass 2 — what answers them (the unit after a prompt or a tool group), best first, while
      // the share lasts: a long reply to hit 1 must not crowd out hits 2 … k.
      const answers: { unit: number; hitAt: number; why: string }[] = [];
      for (const { hit, notes } of hits) {
        if (picked >= this.options.k) break;
        const p = positionOf(hit);
        if (p === undefined || p >= firstRecent) continue;
        const u = units.unitOf[p]!;
        if (u < 0 || keep[u]) continue;
        const unit = units.units[u]!;
        const prompt = unit.kind === "turn" ? u : units.turnBefore(u);
        if (prompt === undefined) continue;
        const core = [...new Set([prompt, u])].filter((x) => !keep[x]);
        const coreCost = core.reduce((sum, x) => sum + tokensOf(x), 0);
        if (recallUsed + coreCost > recallBudget) continue;
        for (const x of core) {
          keep[x] = 1;
          recalled.add(x);
        }
        recallUsed += coreCost;
        picked++;
        const why = explain.enabled ? `recalled for the query (${hit.terms?.length ? `terms ${hit.terms.join(", ")}; ` : ""}score ${hit.score.toFixed(3)}${notes.length ? `; ${notes.join(", ")}` : ""})` : "";
        if (explain.enabled) for (const x of core) for (const q of units.positions(x)) reasons.set(q, q === p ? why : `recalled with ${hit.id}, the hit of its exchange (${why})`);
        if (u + 1 < cut && unit.kind !== "plain" && units.units[u + 1]!.kind !== "turn") answers.push({ unit: u + 1, hitAt: p, why });
      }
      for (const { unit, hitAt, why } of answers) {
        if (keep[unit]) continue;
        const cost = tokensOf(unit);
        if (recallUsed + cost > recallBudget) continue;
        keep[unit] = 1;
        recalled.add(unit);
        recallUsed += cost;
        if (explain.enabled) for (const q of units.positions(unit)) reasons.set(q, `recalled with ${messageId(messages[hitAt]!, hitAt)}, the hit of its exchange (${why})`);
      }
    }

    // --- what recall left goes back to the recent part: whole older turns while they fit -----
    let left = target - used - recallUsed;
    const starts = units.index.turnStarts;
    let t = starts.length - 1;
    while (t >= 0 && starts[t]! >= cut) t--;
    let from = cut;
    for (; t >= 0; t--) {
      const start = starts[t]!;
      let cost = 0;
      for (let u = start; u < from; u++) if (!keep[u] && !units.units[u]!.critical) cost += tokensOf(u);
      if (cost > left) break;
      left -= cost;
      for (let u = start; u < from; u++) {
        keep[u] = 1;
        recalled.delete(u);
      }
      from = start;
    }
    for (const u of recalled) if (u < from) older.push(u);
    for (const u of [...recalled]) if (u >= from) recalled.delete(u);
    return { from, older: older.filter((u) => u < from), recalled, reasons, searched };
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
    return this.options.ranking === "recall" ? recallQuery(text).text : text;
  }

  /** Hits for the query before `firstRecent`, best first; undefined when the index is still catching up (not waited for). */
  async #hits(query: string, messages: readonly Message[], firstRecent: number, search: HistorySearch | undefined, units: HistoryUnits): Promise<RankedHit[] | undefined> {
    const id = messages[firstRecent]?.metadata?.id;
    const source = search ?? (this.#transient ??= new HistorySearchIndex(() => this.#input, { module: this.name }));
    // Positions of the strategy's input are only meaningful to an index over that input.
    const before: string | number = search && typeof id === "string" ? id : firstRecent;
    // A large backlog (resume, replaced history): index in the background, this window goes without hits.
    if (source.ready?.() === false) {
      source.warm?.();
      return undefined;
    }
    const cache = this.#cache;
    if (cache && cache.units === units.index && cache.query === query && cache.before === before) return cache.hits;
    const hits: RankedHit[] = await recallCandidates(source, query, this.options.k * 3, this.options.ranking, { before, filter: { role: ["user", "assistant", "tool"] } });
    this.#cache = { units: units.index, query, before, hits };
    return hits;
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
    if (messages[hit.index]?.metadata?.id === hit.id || (hit.id === `#${hit.index}` && messages[hit.index] !== undefined)) return hit.index;
    if (!byId) {
      byId = new Map();
      messages.forEach((m, i) => typeof m.metadata?.id === "string" && !byId!.has(m.metadata.id) && byId!.set(m.metadata.id, i));
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
