/**
 * `summarization` {recentTokenBudget = 8000, minOldTokens = 1000, summaryMaxTokens = 1000,
 * targetRatio = 0.7, timeoutMs = 30000}.
 *
 * Walks back from the newest end keeping turns up to recentTokenBudget tokens; everything older
 * (old-part.ts: never instructions, never critical units, tool units whole) becomes ONE summary
 * message (summary-message.ts), placed right after the leading instructions.
 *
 * | situation                                         | result                                  |
 * |---------------------------------------------------|-----------------------------------------|
 * | the history fits recentTokenBudget                | unchanged                               |
 * | the old part has < minOldTokens tokens            | unchanged (not worth a summary yet)     |
 * | the old part starts with a summary message        | that summary is UPDATED (previousSummary, its covers carried over) — never a second one stacked |
 * | the old part grew since this instance's last summary | only the new old messages are summarised, into an update of the last summary |
 * | the old part is the same as last time             | the same summary message (no summarizer call; same object, cache-friendly) |
 * | the summarizer throws, times out or returns nothing | fallback: the old part is DROPPED (a previous summary message is kept), `context:summary_failed` is emitted, explain says why |
 *
 * Summarizer: `context.summarizer` when the context module has one, else the offline
 * ExtractiveSummarizer counting with `context.counter`. Cut hysteresis (stepped-cut.ts): the cut
 * stays put until the recent part exceeds recentTokenBudget again, then moves so the recent part
 * is ≤ targetRatio × recentTokenBudget — the summary (and the window's prefix) changes only then.
 */
import { z } from "zod";
import type { CompactionContext, CompactionStrategy, Summarizer } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { SplitInput, type HistoryUnits } from "../history-units.js";
import { SteppedCut } from "../stepped-cut.js";
import { UnitTokenSums } from "../unit-token-sums.js";
import { ArraySource, differs, MessageLog, type IncrementalStrategy, type LogStep, type MessageSource } from "../message-log.js";
import { defineStrategy, type StrategyDeps } from "@amplifier-ts/contracts";
import { keepLastTurn, manifestUnits, oldPart, replaceRange, snapToTurn } from "./old-part.js";
import { BackgroundSummaries, backgroundShape, type SummaryTarget } from "./background.js";
import { lowestFitting } from "../stepped-cut.js";
import type { CompactOptions, CompactResult } from "@amplifier-ts/contracts";
import { ManualCompaction, type ManualRequest } from "./manual-compaction.js";
import { isSummaryMessage, makeSummaryMessage, summarizeOld, summaryTextOf } from "./summary-message.js";

export const summarizationOptions = z
  .object({
    recentTokenBudget: z.number().int().positive().default(8_000),
    minOldTokens: z.number().int().min(0).default(1_000),
    summaryMaxTokens: z.number().int().positive().default(1_000),
    targetRatio: z.number().gt(0).lte(1).default(0.7),
    timeoutMs: z.number().int().positive().default(30_000),
    /** The lower watermark (share of recentTokenBudget) past which the recent part has a background summary prepared; default midway between targetRatio and 1. */
    prepareAt: z.number().gt(0).lt(1).optional(),
    ...backgroundShape,
  })
  .strict();
export type SummarizationOptions = z.output<typeof summarizationOptions>;

/** What a summarizing strategy may be given besides its options (all optional). */
export interface SummarizerDeps {
  /** Used when the CompactionContext carries no summarizer. */
  readonly summarizer?: Summarizer;
}

interface LastSummary {
  /** The raw old messages it was computed from (a leading summary message included), by identity: ids repeat across cleared sessions. */
  readonly old: readonly Message[];
  readonly message: Message;
}

export class SummarizationCompaction implements CompactionStrategy, IncrementalStrategy {
  readonly name = "summarization";
  readonly #cut = new SteppedCut();
  #last: LastSummary | undefined;

  readonly #bg: BackgroundSummaries | undefined;
  readonly #manual = new ManualCompaction(this.name);

  constructor(
    readonly options: SummarizationOptions,
    readonly deps: SummarizerDeps = {},
  ) {
    this.#bg = options.background ? new BackgroundSummaries(this.name, options, deps.summarizer) : undefined;
  }

  /** The background preparation (tests, the bench); undefined without `background: true`. */
  get background(): BackgroundSummaries | undefined {
    return this.#bg;
  }

  /** Stops the background preparation and awaits the call in flight (the context manager's close()). */
  async close(): Promise<void> {
    await this.#bg?.close();
  }

  /** Withdraws a manual request this strategy was not run for (the manager's window did not reach it). */
  cancelCompaction(reason: string): void {
    this.#manual.cancel(reason);
  }

  /**
   * Manual compaction: the NEXT run of this strategy (the context manager's compact() runs one at
   * once) summarises its next cut now, with `focus`; the promise tells what it did.
   */
  requestCompaction(options: CompactOptions = {}): Promise<CompactResult> {
    return this.#manual.request(options);
  }

  async compact(messages: readonly Message[], context: CompactionContext): Promise<Message[]> {
    return (await this.compactLog(this.#arrays.set(messages), context)).output.items.slice();
  }

  resetLog(): void {
    this.#input.reset();
    this.#kept = undefined;
  }

  readonly #arrays = new ArraySource();
  readonly #input = new SplitInput();
  readonly #sums = new UnitTokenSums();
  readonly #out = new MessageLog();
  /** The last output's cut and input length, while it can be extended by appending (a summary or "unchanged"). */
  #kept: { cut: number; inputLength: number; changed: boolean } | undefined;

  /**
   * While the input only grows, the cut stays and no unit before it changes, the old part — and so
   * the summary — is what it was: the output is the previous one plus the new messages, O(new).
   * Otherwise the old part is computed again (O(history), only when the cut moves).
   */
  async compactLog(input: MessageSource, context: CompactionContext): Promise<LogStep> {
    const { recentTokenBudget, minOldTokens, targetRatio } = this.options;
    const { counter, explain } = context;
    const { units, from, rebuilt } = this.#input.sync(input, explain.enabled);
    const sums = this.#sums.update(units, rebuilt, counter);
    const messages = units.messages;
    const decided = this.#cut.decide(units, (f, scale) => sums.suffix(f) <= scale * recentTokenBudget, targetRatio);
    let cut = decided === 0 ? 0 : keepLastTurn(units, snapToTurn(units, decided));
    // A manual compaction's cut holds until the stepped cut passes it.
    if (this.#floor !== undefined) {
      const floor = units.unitWithFirstId(this.#floor);
      if (floor === undefined) this.#floor = undefined;
      else if (floor > cut) cut = floor;
    }
    const manual = this.#manual.take();
    if (manual) {
      this.#kept = undefined;
      return this.#compactNow(manual, units, sums, messages, context);
    }
    if (this.#bg) this.#prepare(this.#bg, units, sums, cut, context);
    const kept = this.#kept;
    // A cut past the last unit has no fixed boundary (orphans appended later are old): not extended.
    if (kept && !rebuilt && kept.cut === cut && cut < units.length && kept.inputLength === from && !(units.lowestChanged < cut)) {
      for (let i = from; i < messages.length; i++) this.#out.append(messages[i]!);
      kept.inputLength = messages.length;
      return { output: this.#out, changed: kept.changed };
    }
    this.#kept = undefined;
    const result = await this.#compute(units, cut, messages, context, minOldTokens);
    this.#out.reset(result.messages);
    const changed = differs(messages, result.messages);
    if (result.extendable && cut < units.length) this.#kept = { cut, inputLength: messages.length, changed };
    return { output: this.#out, changed };
  }

  async #compute(units: HistoryUnits, cut: number, messages: readonly Message[], context: CompactionContext, minOldTokens: number): Promise<{ messages: Message[]; extendable: boolean }> {
    const { recentTokenBudget } = this.options;
    const { counter } = context;
    const old = oldPart(units, cut, this.#bg ? manifestUnits(units, cut, this.options.reinject) : undefined);
    if (old.messages.length === 0 || counter.countMessages(old.messages) < minOldTokens) return { messages: [...messages], extendable: true };

    const summary = await this.#summary(old.messages, old.ids, context);
    const remove = new Set(old.positions);
    const { explain } = context;
    if (summary.ok && summary.covered) {
      // Background: the summary stands for part of the old part; the rest stays verbatim until the next swap.
      const covered = summary.covered;
      const keepVerbatim = old.positions.filter((_, k) => !covered.has(old.messages[k]!));
      for (const p of keepVerbatim) remove.delete(p);
      const reason = explain.enabled ? `older than the most recent ${recentTokenBudget} tokens; summarized into ${String(summary.message.metadata?.id)}` : "";
      old.ids.forEach((messageId, k) => covered.has(old.messages[k]!) && explain.record(messageId, "summarized", this.name, reason));
      return { messages: replaceRange(messages, remove, summary.message), extendable: keepVerbatim.length === 0 };
    }
    if (summary.ok) {
      const id = String(summary.message.metadata?.id);
      const reason = explain.enabled ? `older than the most recent ${recentTokenBudget} tokens; summarized into ${id}` : "";
      old.ids.forEach((messageId, k) => old.messages[k] !== summary.message && explain.record(messageId, "summarized", this.name, reason));
      return { messages: replaceRange(messages, remove, summary.message), extendable: true };
    }
    if (summary.pending) return { messages: [...messages], extendable: false };
    // Fallback: drop the old part, but keep a summary the history already has.
    const kept = isSummaryMessage(old.messages[0]) ? old.messages[0] : undefined;
    if (kept) remove.delete(old.positions[0]!);
    const reason = explain.enabled ? `older than the most recent ${recentTokenBudget} tokens; dropped because the summarizer failed: ${summary.reason}` : "";
    old.ids.forEach((messageId, k) => old.messages[k] !== kept && explain.record(messageId, "dropped", this.name, reason));
    // Not extended: the next request asks the summarizer again.
    return { messages: replaceRange(messages, remove, undefined), extendable: false };
  }

  async #summary(old: readonly Message[], oldIds: readonly string[], context: CompactionContext): Promise<SummaryResult> {
    const last = this.#last;
    if (last && startsWith(old, last.old) && old.length === last.old.length) return { ok: true, message: last.message };
    let previous: Message | undefined;
    let fresh: readonly Message[];
    let freshIds: readonly string[];
    if (last && startsWith(old, last.old)) {
      previous = last.message;
      fresh = old.slice(last.old.length);
      freshIds = oldIds.slice(last.old.length);
    } else if (isSummaryMessage(old[0])) {
      previous = old[0];
      fresh = old.slice(1);
      freshIds = oldIds.slice(1);
    } else {
      fresh = old;
      freshIds = oldIds;
    }
    if (this.#bg) return this.#swapReady(this.#bg, old, oldIds, context);
    const { summarizer, outcome } = await summarizeOld(this.name, fresh, previous, context, { summarizer: this.deps.summarizer, ...this.options });
    if (!outcome.ok) return outcome;
    const covers = [...((previous?.metadata?.summary?.covers as string[] | undefined) ?? []), ...freshIds];
    const message = makeSummaryMessage(outcome.text, { covers, strategy: this.name, summarizer: summarizer.name });
    this.#last = { old: [...old], message };
    return { ok: true, message };
  }

  // --- background summarization and manual compaction (background.ts) ------------------------

  /** The first id of the unit a manual compaction cut at (the cut stays there or later). */
  #floor: string | undefined;

  /** The cut targetRatio × recentTokenBudget gives: where the next stepped cut moves to. */
  #nextCut(units: HistoryUnits, sums: { suffix(from: number): number }): number {
    const { recentTokenBudget, targetRatio } = this.options;
    return keepLastTurn(units, snapToTurn(units, lowestFitting(units.length, (f) => sums.suffix(f) <= targetRatio * recentTokenBudget)));
  }

  /** What a summary of `old` adds to the last one: the old messages it does not cover, over it as the base. */
  #targetFor(old: readonly Message[], oldIds: readonly string[]): SummaryTarget {
    const last = this.#last;
    const inOld = new Set(old);
    const base = last && last.old.every((m) => inOld.has(m)) ? last : undefined;
    const prior = new Set(base?.old ?? []);
    const fresh: Message[] = [];
    const freshIds: string[] = [];
    old.forEach((m, k) => {
      if (!prior.has(m) && !isSummaryMessage(m)) {
        fresh.push(m);
        freshIds.push(oldIds[k]!);
      }
    });
    return { fresh, freshIds, base: base?.message };
  }

  /** The lower watermark: past prepareAt × recentTokenBudget after the cut, the next cut's summary is prepared (never awaited). */
  #prepare(bg: BackgroundSummaries, units: HistoryUnits, sums: { suffix(from: number): number }, cut: number, context: CompactionContext): void {
    const { recentTokenBudget, targetRatio, minOldTokens } = this.options;
    const prepareAt = (this.options.prepareAt ?? (targetRatio + 1) / 2) * recentTokenBudget;
    if (bg.busy || bg.ready || sums.suffix(cut) <= prepareAt) return;
    const next = this.#nextCut(units, sums);
    if (next <= 0) return;
    const old = oldPart(units, next, manifestUnits(units, next, this.options.reinject));
    if (old.messages.length === 0 || context.counter.countMessages(old.messages) < minOldTokens) return;
    bg.prepare(this.#targetFor(old.messages, old.ids), context);
  }

  /**
   * At a cut whose summary is not the last one: a ready summary over the last one is swapped in
   * (it may stand for part of the old part: the rest stays verbatim); else the last summary stays
   * over what it covers, the rest verbatim, and the preparation is started — or awaited (`wait`).
   */
  async #swapReady(bg: BackgroundSummaries, old: readonly Message[], oldIds: readonly string[], context: CompactionContext): Promise<SummaryResult> {
    const target = this.#targetFor(old, oldIds);
    const inOld = new Set(old);
    const usable = () => {
      const ready = bg.ready;
      return ready && ready.base === target.base && ready.fresh.every((m) => inOld.has(m)) ? ready : undefined;
    };
    let waitedMs: number | undefined;
    if (!usable() && target.fresh.length > 0) {
      bg.prepare(target, context);
      if (this.options.wait) {
        const started = performance.now();
        await bg.settle(target, context);
        waitedMs = performance.now() - started;
      }
    }
    const ready = usable();
    const last = this.#last;
    if (ready) {
      bg.take();
      const fresh = new Set(ready.fresh);
      const prior = new Set(target.base && last ? last.old : []);
      const coveredOld = old.filter((m) => prior.has(m) || fresh.has(m));
      const covers = [...((target.base?.metadata?.summary?.covers as string[] | undefined) ?? []), ...ready.freshIds];
      const message = makeSummaryMessage(ready.text, { covers, strategy: this.name, summarizer: ready.summarizer });
      this.#last = { old: coveredOld, message };
      await context.hooks?.emit("context:summary_swapped", { strategy: this.name, summarizer: ready.summarizer, covers: covers.length, tokens: ready.tokens, ...(waitedMs !== undefined ? { waitedMs } : {}) }).catch(() => undefined);
      return { ok: true, message, covered: new Set(coveredOld) };
    }
    if (target.base && last) return { ok: true, message: last.message, covered: new Set(last.old) };
    return { ok: false, reason: "the background summary is not ready", pending: true };
  }

  /** Manual compaction: the old part at the next cut summarised now (focus, check), swapped in, its cut held. */
  async #compactNow(manual: ManualRequest, units: HistoryUnits, sums: { suffix(from: number): number }, messages: readonly Message[], context: CompactionContext): Promise<LogStep> {
    const cut = this.#nextCut(units, sums);
    // The manifest as the later windows' cut sees it (#compute): only in background mode.
    const old = oldPart(units, cut, this.#bg ? manifestUnits(units, cut, this.options.reinject) : undefined);
    const target = this.#targetFor(old.messages, old.ids);
    const unchanged = async (reason: string): Promise<LogStep> => {
      manual.resolve({ compacted: false, strategy: this.name, summarized: 0, reason });
      return this.compactLog(new ArraySource().set(messages), context);
    };
    if (cut <= 0 || target.fresh.length === 0) return unchanged(`nothing older than the most recent ${this.options.targetRatio} × ${this.options.recentTokenBudget} tokens that no summary covers`);
    const bg = this.#bg ?? new BackgroundSummaries(this.name, this.options, this.deps.summarizer);
    const run = await bg.runNow(target, context, manual.focus);
    if (!run.ok) return unchanged(run.reason);
    const covers = [...((target.base?.metadata?.summary?.covers as string[] | undefined) ?? []), ...run.prepared.freshIds];
    const message = makeSummaryMessage(run.prepared.text, { covers, strategy: this.name, summarizer: run.prepared.summarizer });
    this.#last = { old: [...old.messages], message };
    this.#floor = units.firstIdOf(cut);
    await context.hooks?.emit("context:summary_swapped", { strategy: this.name, summarizer: run.prepared.summarizer, covers: covers.length, tokens: run.prepared.tokens, manual: true }).catch(() => undefined);
    manual.resolve({ compacted: true, strategy: this.name, summarized: target.fresh.length });
    this.resetLog();
    return this.compactLog(new ArraySource().set(messages), context);
  }
}

export const summarizationStrategy = defineStrategy({
  name: "summarization",
  description: "keep the most recent recentTokenBudget tokens; summarise everything older into one summary message (updated, never stacked)",
  optionsSchema: summarizationOptions,
  create: (options, deps: StrategyDeps & SummarizerDeps) => new SummarizationCompaction(options, { ...(deps.summarizer ? { summarizer: deps.summarizer } : {}) }),
});

type SummaryResult = { ok: true; message: Message; covered?: ReadonlySet<Message> } | { ok: false; reason: string; pending?: boolean };

function startsWith<T>(list: readonly T[], prefix: readonly T[]): boolean {
  if (prefix.length > list.length) return false;
  for (let i = 0; i < prefix.length; i++) if (list[i] !== prefix[i]) return false;
  return true;
}
