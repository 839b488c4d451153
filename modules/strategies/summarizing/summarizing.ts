/**
 * `summarizing` {threshold = 0.8, recentRatio = 0.5, summaryMaxTokens = 2000, contextWindow?,
 * timeoutMs = 30000}, with a CHECKPOINT.
 *
 * When the window passes threshold × the model's context window (`contextWindow`, else the model
 * registry's for `counter.model`, else the budget), the old part — everything before the most
 * recent recentRatio × window tokens (old-part.ts: never instructions or critical units; tool
 * units whole; the last user turn always recent) — is summarised into a checkpoint message:
 * `metadata.summary = { covers: [ids], strategy: "summarizing", summarizer }`.
 *
 * | rule | meaning |
 * |---|---|
 * | computed once | the checkpoint is kept by the strategy instance and reused by every later window (no summarizer call) until the window passes the threshold again; then only the messages newly old are summarised, as an UPDATE of the checkpoint (previousSummary) — covers accumulate, one checkpoint at a time |
 * | originals never destroyed | the strategy only builds windows; the covered messages stay in the history and the store |
 * | persistence hook | a new checkpoint is passed to `deps.onCheckpoint(message)` (optional) so the context module can store it; persisting is best effort (a throw is ignored: the checkpoint then lives in memory and is recomputed after a restart) |
 * | survives resume | a checkpoint found in the input (the latest message with `metadata.summary.strategy === "summarizing"`) is adopted: a fresh instance reuses it instead of summarising again |
 * | placement | the checkpoint sits right after the leading instructions (summary-message.ts); stored checkpoint messages are removed from their stored positions |
 * | stale checkpoint | one whose covered ids are not all in the history, or whose `fingerprint` (role + content of the covered messages) no longer matches them (cleared, replaced), is ignored |
 * | failure | a summarizer that throws or times out: the newly old messages are DROPPED from this window (the previous checkpoint kept), `context:summary_failed` is emitted; the next window tries again |
 */
import { z } from "zod";
import type { CompactionContext, CompactionStrategy } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { getModelInfo } from "@amplifier-ts/tokens";
import { isInstruction } from "@amplifier-ts/window";
import { HistoryUnits, messageId } from "../history-units.js";
import { ArraySource, differs, HistorySource, LogCursor, MessageLog, RunningSourceTokens, type IncrementalStrategy, type LogStep, type MessageSource } from "../message-log.js";
import { lowestFitting, suffixSums } from "../stepped-cut.js";
import { defineStrategy, type StrategyDeps } from "@amplifier-ts/contracts";
import { insertAfterInstructions, keepLastTurn, manifestUnits, oldPart, snapToTurn, unitTokens } from "./old-part.js";
import type { SummarizerDeps } from "./summarization.js";
import type { CompactOptions, CompactResult } from "@amplifier-ts/contracts";
import { ManualCompaction, type ManualRequest } from "./manual-compaction.js";
import { BackgroundSummaries, backgroundShape, type SummaryTarget } from "./background.js";
import { coversFingerprint, extendFingerprint, isSummaryMessage, makeSummaryMessage, rememberFingerprint, summarizeOld, summaryTextOf } from "./summary-message.js";

export const summarizingOptions = z
  .object({
    threshold: z.number().gt(0).lte(1).default(0.8),
    recentRatio: z.number().gt(0).lt(1).default(0.5),
    summaryMaxTokens: z.number().int().positive().default(2_000),
    contextWindow: z.number().int().positive().optional(),
    timeoutMs: z.number().int().positive().default(30_000),
    /** The lower watermark (share of the window) past which a background summary is prepared; default midway between recentRatio and threshold. */
    prepareAt: z.number().gt(0).lt(1).optional(),
    ...backgroundShape,
  })
  .strict()
  .refine((o) => o.recentRatio < o.threshold, { message: "recentRatio must be below threshold (the recent part must fit under the trigger)", path: ["recentRatio"] })
  .refine((o) => o.prepareAt === undefined || (o.prepareAt > o.recentRatio && o.prepareAt < o.threshold), { message: "prepareAt must be between recentRatio and threshold (prepared before the trigger, over more than the recent part)", path: ["prepareAt"] });
export type SummarizingOptions = z.output<typeof summarizingOptions>;

export interface SummarizingDeps extends SummarizerDeps {
  /** Told every NEW checkpoint (not reused ones), to persist it next to the history. */
  readonly onCheckpoint?: (message: Message) => void | Promise<void>;
}

export class SummarizingContext implements CompactionStrategy, IncrementalStrategy {
  readonly name = "summarizing";
  #checkpoint: Message | undefined;
  #verified: { checkpoint: Message; messages: readonly Message[] } | undefined;

  constructor(
    readonly options: SummarizingOptions,
    readonly deps: SummarizingDeps = {},
  ) {
    this.#bg = options.background ? new BackgroundSummaries(this.name, options, deps.summarizer) : undefined;
  }

  /** The checkpoint in use (for tests and for modules that persist it themselves). */
  get checkpoint(): Message | undefined {
    return this.#checkpoint;
  }

  async compact(messages: readonly Message[], context: CompactionContext): Promise<Message[]> {
    return (await this.compactLog(this.#arrays.set(messages), context)).output.items.slice();
  }

  resetLog(): void {
    this.#last = undefined;
    this.#cursor.reset();
  }

  readonly #arrays = new ArraySource();
  readonly #cursor = new LogCursor();
  /** The input without stored checkpoints, and the view (the output), kept between requests. */
  readonly #history = new MessageLog();
  readonly #view = new MessageLog();
  readonly #running = new RunningSourceTokens();

  async compactLog(input: MessageSource, context: CompactionContext): Promise<LogStep> {
    const { counter, explain } = context;
    const window = this.options.contextWindow ?? getModelInfo(counter.model)?.contextWindow ?? context.budget;
    const trigger = this.options.threshold * window;
    const messages = input.items;
    // While the input only grows (the usual agent loop), the previous call's history, checkpoint,
    // view and token total are extended with the new messages: O(new) instead of O(history).
    const from = this.#cursor.next(input);
    const last = this.#last;
    const grown = last !== undefined && counter === last.counter && from === last.inputLength;
    const historyLog = this.#history;
    let stored: Checkpoint | undefined;
    let added: readonly Message[] = [];
    if (last && grown) {
      added = messages.slice(from);
      for (const m of added) if (!isCheckpoint(m)) historyLog.append(m);
      stored = latestCheckpoint(added) ?? last.stored;
    } else {
      historyLog.reset(messages.filter((m) => !isCheckpoint(m)));
      stored = latestCheckpoint(messages);
    }
    const history = historyLog.items;
    const checkpoint = this.#adopt(stored, history, last && grown ? { last, added } : undefined);
    const covered = coveredIds(checkpoint);
    const viewLog = this.#view;
    if (last && grown && last.checkpoint === checkpoint) {
      for (let k = last.historyLength; k < history.length; k++) {
        const m = history[k]!;
        if (covered.has(messageId(m, k))) continue;
        // The checkpoint sits after the LEADING instructions (withCheckpoint). While it is the view's
        // last message, everything before it is an instruction: a new instruction joins that leading
        // run, so the checkpoint moves after it (as a recompute would place it).
        if (checkpoint && isInstruction(m) && viewLog.items[viewLog.length - 1] === checkpoint) {
          viewLog.truncate(viewLog.length - 1);
          viewLog.append(m);
          viewLog.append(checkpoint);
        } else {
          viewLog.append(m);
        }
      }
    } else {
      viewLog.reset(withCheckpoint(history, covered, checkpoint));
    }
    const remember = (c: Checkpoint | undefined) => {
      this.#last = { inputLength: messages.length, counter, historyLength: history.length, stored, checkpoint: c };
    };
    const step = (c: Checkpoint | undefined): LogStep => ({ output: viewLog, changed: c !== undefined || viewLog.length !== messages.length });
    const tokens = this.#running.measure(viewLog, counter);
    const manual = this.#manual.take();
    if (manual) return this.#compactNow(manual, history, covered, checkpoint, window, context, remember, step);
    if (this.#bg) return this.#background(this.#bg, tokens, trigger, history, covered, checkpoint, window, context, remember, step);
    if (tokens <= trigger) {
      remember(checkpoint);
      this.#explained(history, covered, checkpoint, explain);
      return step(checkpoint);
    }

    // Past the threshold: the recent part is what fits recentRatio × window, from the newest end.
    const target = this.#target(history, covered, checkpoint, window, counter, false);
    if (!target) {
      remember(checkpoint);
      this.#explained(history, covered, checkpoint, explain);
      return step(checkpoint);
    }
    const { fresh, freshIds } = target;

    const { summarizer, outcome } = await summarizeOld(this.name, fresh, checkpoint, context, { summarizer: this.deps.summarizer, ...this.options });
    if (!outcome.ok) {
      // The next request tries again from scratch: nothing of this one is remembered.
      this.resetLog();
      const reason = explain.enabled ? `past ${this.options.threshold} × ${window} tokens; dropped because the summarizer failed: ${outcome.reason}` : "";
      freshIds.forEach((id) => explain.record(id, "dropped", this.name, reason));
      const dropped = new Set(freshIds);
      const out = withCheckpoint(history, covered, checkpoint, dropped);
      this.#explained(history, covered, checkpoint, explain);
      return { output: new HistorySource(out), changed: differs(messages, out) };
    }
    const next = await this.#swap(outcome.text, summarizer.name, freshIds, history, covered, checkpoint);
    const nextCovered = coveredIds(next);
    viewLog.reset(withCheckpoint(history, nextCovered, next));
    remember(next);
    this.#explained(history, nextCovered, next, explain);
    return step(next);
  }

  // --- background summarization and manual compaction (background.ts) ------------------------

  readonly #bg: BackgroundSummaries | undefined;
  readonly #manual = new ManualCompaction(this.name);

  /** The old part's messages no checkpoint covers yet, at the cut recentRatio × window gives (the re-injection manifest kept out). */
  #target(history: readonly Message[], covered: ReadonlySet<string>, checkpoint: Message | undefined, window: number, counter: CompactionContext["counter"], withManifest = true): SummaryTarget | undefined {
    const units = new HistoryUnits(history);
    const sums = suffixSums(units, unitTokens(units, (m) => counter.countMessage(m)));
    const recentBudget = this.options.recentRatio * window;
    const cut = keepLastTurn(units, snapToTurn(units, lowestFitting(units.length, (f) => sums[f]! <= recentBudget)));
    const old = oldPart(units, cut, withManifest ? manifestUnits(units, cut, this.options.reinject) : undefined);
    const freshPositions = old.positions.filter((_, k) => !covered.has(old.ids[k]!));
    if (freshPositions.length === 0) return undefined;
    return { fresh: freshPositions.map((i) => history[i]!), freshIds: freshPositions.map((i) => messageId(history[i]!, i)), base: checkpoint };
  }

  /** The checkpoint of `text` standing for what `covered` and `freshIds` cover; made current and handed to onCheckpoint. */
  async #swap(text: string, summarizerName: string, freshIds: readonly string[], history: readonly Message[], covered: ReadonlySet<string>, base: Message | undefined): Promise<Checkpoint> {
    const covers = [...covered, ...freshIds];
    const byId = new Map(history.map((m, i) => [messageId(m, i), m] as const));
    const coveredMessages = covers.map((id) => byId.get(id)!);
    // O(fresh) when the base checkpoint was made here: only what this update adds is hashed.
    const { fingerprint, state } = extendFingerprint(base, coveredMessages.slice(0, covered.size), coveredMessages.slice(covered.size));
    const next = makeSummaryMessage(text, { covers, fingerprint, strategy: this.name, summarizer: summarizerName }) as Checkpoint;
    rememberFingerprint(next, state);
    this.#checkpoint = next;
    this.#verified = { checkpoint: next, messages: coveredMessages };
    try {
      await this.deps.onCheckpoint?.(next);
    } catch {
      // Best effort (see the table above): the checkpoint still serves this instance.
    }
    return next;
  }

  /**
   * Background mode: past prepareAt × window the summary of the next cut is prepared (never
   * awaited); past the threshold a ready summary is swapped in, else the window goes on unchanged
   * this turn (the assembler's ladder fits it) — or, with `wait`, the request waits for it.
   */
  async #background(bg: BackgroundSummaries, tokens: number, trigger: number, history: readonly Message[], covered: ReadonlySet<string>, checkpoint: Checkpoint | undefined, window: number, context: CompactionContext, remember: (c: Checkpoint | undefined) => void, step: (c: Checkpoint | undefined) => LogStep): Promise<LogStep> {
    const { explain, counter } = context;
    const prepareAt = (this.options.prepareAt ?? (this.options.recentRatio + this.options.threshold) / 2) * window;
    const unchanged = (): LogStep => {
      remember(checkpoint);
      this.#explained(history, covered, checkpoint, explain);
      return step(checkpoint);
    };
    if (tokens <= prepareAt) return unchanged();
    // Not while a summary over this checkpoint is ready or being prepared: O(history) once per compaction.
    const haveOne = bg.ready !== undefined && bg.ready.base === checkpoint;
    if (!haveOne && !bg.busy) {
      const target = this.#target(history, covered, checkpoint, window, counter);
      if (target) bg.prepare(target, context);
    }
    if (tokens <= trigger) return unchanged();
    let waitedMs: number | undefined;
    if (!bg.ready && this.options.wait) {
      const started = performance.now();
      await bg.settle(this.#target(history, covered, checkpoint, window, counter), context);
      waitedMs = performance.now() - started;
    }
    const ready = bg.take();
    if (!ready) return unchanged();
    if (ready.base !== checkpoint || !this.#stillThere(ready, history)) {
      // Prepared over another checkpoint or messages no longer in the history: prepared again.
      const target = this.#target(history, covered, checkpoint, window, counter);
      if (target) bg.prepare(target, context);
      return unchanged();
    }
    const next = await this.#swap(ready.text, ready.summarizer, ready.freshIds, history, covered, checkpoint);
    await context.hooks
      ?.emit("context:summary_swapped", { strategy: this.name, summarizer: ready.summarizer, covers: next.metadata.summary.covers.length, tokens: ready.tokens, ...(waitedMs !== undefined ? { waitedMs } : {}) })
      .catch(() => undefined);
    const nextCovered = coveredIds(next);
    this.#view.reset(withCheckpoint(history, nextCovered, next));
    remember(next);
    this.#explained(history, nextCovered, next, explain);
    return step(next);
  }

  /** Whether every message a prepared summary stands for is still in the history, the same object. */
  #stillThere(ready: SummaryTarget, history: readonly Message[]): boolean {
    const byId = new Map<string, Message>();
    history.forEach((m, i) => byId.set(messageId(m, i), m));
    return ready.freshIds.every((id, k) => byId.get(id) === ready.fresh[k]);
  }

  /** Manual compaction (context.compact({ focus })): the next cut summarised now, checked, swapped. */
  async #compactNow(manual: NonNullable<SummarizingContext["manualRequest"]>, history: readonly Message[], covered: ReadonlySet<string>, checkpoint: Checkpoint | undefined, window: number, context: CompactionContext, remember: (c: Checkpoint | undefined) => void, step: (c: Checkpoint | undefined) => LogStep): Promise<LogStep> {
    const { explain, counter } = context;
    const target = this.#target(history, covered, checkpoint, window, counter);
    const unchanged = (reason: string): LogStep => {
      manual.resolve({ compacted: false, strategy: this.name, summarized: 0, reason });
      remember(checkpoint);
      this.#explained(history, covered, checkpoint, explain);
      return step(checkpoint);
    };
    if (!target) return unchanged(`nothing older than the most recent ${this.options.recentRatio} × ${window} tokens that no summary covers`);
    const bg = this.#bg ?? new BackgroundSummaries(this.name, this.options, this.deps.summarizer);
    const run = await bg.runNow(target, context, manual.focus);
    if (!run.ok) return unchanged(run.reason);
    const next = await this.#swap(run.prepared.text, run.prepared.summarizer, run.prepared.freshIds, history, covered, checkpoint);
    await context.hooks?.emit("context:summary_swapped", { strategy: this.name, summarizer: run.prepared.summarizer, covers: next.metadata.summary.covers.length, tokens: run.prepared.tokens, manual: true }).catch(() => undefined);
    const nextCovered = coveredIds(next);
    this.#view.reset(withCheckpoint(history, nextCovered, next));
    remember(next);
    this.#explained(history, nextCovered, next, explain);
    manual.resolve({ compacted: true, strategy: this.name, summarized: target.fresh.length });
    return step(next);
  }

  /** @internal The manual request the next compactLog serves (set by requestCompaction). */
  get manualRequest(): ManualRequest | undefined {
    return this.#manual.pending;
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

  /** Stops the background preparation and awaits the call in flight (the context manager's close()). */
  async close(): Promise<void> {
    await this.#bg?.close();
  }

  /** The background preparation (tests, the bench); undefined without `background: true`. */
  get background(): BackgroundSummaries | undefined {
    return this.#bg;
  }

  #last: SummarizingState | undefined;

  /** The checkpoint to use: this instance's, or the latest stored one when it covers more; stale ones ignored. */
  #adopt(stored: Checkpoint | undefined, history: readonly Message[], grown?: { last: SummarizingState; added: readonly Message[] }): Checkpoint | undefined {
    const mine = this.#checkpoint as Checkpoint | undefined;
    let best = mine;
    if (stored && (!mine || stored.metadata.summary.covers.length > mine.metadata.summary.covers.length)) best = stored;
    if (!best) return undefined;
    // Still live when the history only grew past the last check and no new message reuses a covered id.
    if (grown && grown.last.checkpoint === best && this.#verified?.checkpoint === best && !reusesCoveredId(grown.added, best)) return best;
    if (!this.#isLive(best, history)) {
      if (best === mine) this.#checkpoint = undefined;
      return undefined;
    }
    this.#checkpoint = best;
    return best;
  }

  /**
   * A checkpoint is live when every id it covers is in the history AND those messages are the ones
   * it summarised (its fingerprint): ids repeat after a clear(), so ids alone could adopt a stale
   * checkpoint. The covered objects last verified are remembered, so a turn costs O(covered)
   * identity checks, and hashing only when the history was replaced.
   */
  #isLive(checkpoint: Checkpoint, history: readonly Message[]): boolean {
    const { covers, fingerprint } = checkpoint.metadata.summary;
    const byId = new Map<string, Message>();
    history.forEach((m, i) => byId.set(messageId(m, i), m));
    const covered: Message[] = [];
    for (const id of covers) {
      const m = byId.get(id);
      if (!m) return false;
      covered.push(m);
    }
    const verified = this.#verified;
    if (verified?.checkpoint === checkpoint && verified.messages.length === covered.length && verified.messages.every((m, i) => m === covered[i])) return true;
    if (typeof fingerprint === "string" && fingerprint !== coversFingerprint(covered)) return false;
    this.#verified = { checkpoint, messages: covered };
    return true;
  }

  #explained(history: readonly Message[], covered: ReadonlySet<string>, checkpoint: Message | undefined, explain: CompactionContext["explain"]): void {
    if (explain.enabled && checkpoint) {
      const reason = `covered by checkpoint ${String(checkpoint.metadata?.id)} (computed once, reused)`;
      history.forEach((m, i) => {
        const id = messageId(m, i);
        if (covered.has(id)) explain.record(id, "summarized", this.name, reason);
      });
    }
  }
}

/** What one call leaves for the next (the fast path while the input only grows); the history and view are the instance's logs. */
interface SummarizingState {
  inputLength: number;
  counter: CompactionContext["counter"];
  historyLength: number;
  stored: Checkpoint | undefined;
  checkpoint: Checkpoint | undefined;
}

/** The ids a checkpoint covers, as a set built once per checkpoint (covers grow with the history). */
const coveredSets = new WeakMap<Message, ReadonlySet<string>>();
const NONE: ReadonlySet<string> = new Set();
function coveredIds(checkpoint: Checkpoint | undefined): ReadonlySet<string> {
  if (!checkpoint) return NONE;
  let set = coveredSets.get(checkpoint);
  if (!set) {
    set = new Set(checkpoint.metadata.summary.covers);
    coveredSets.set(checkpoint, set);
  }
  return set;
}

/** The last summarizing checkpoint among `messages`. */
function latestCheckpoint(messages: readonly Message[]): Checkpoint | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (isCheckpoint(messages[i]!)) return messages[i] as Checkpoint;
  return undefined;
}

function reusesCoveredId(added: readonly Message[], checkpoint: Checkpoint): boolean {
  if (added.length === 0) return false;
  const covers = coveredIds(checkpoint);
  return added.some((m) => typeof m.metadata?.id === "string" && covers.has(m.metadata.id));
}

type Checkpoint = Message & { metadata: { summary: { covers: string[]; strategy?: string; fingerprint?: unknown } } };

function isCheckpoint(message: Message): boolean {
  return isSummaryMessage(message) && message.metadata.summary.strategy === "summarizing";
}

/** `history` without the covered (and `dropped`) messages, the checkpoint after the leading instructions. */
function withCheckpoint(history: readonly Message[], covered: ReadonlySet<string>, checkpoint: Message | undefined, dropped?: ReadonlySet<string>): Message[] {
  if (!checkpoint && !dropped) return [...history];
  const out = history.filter((m, i) => {
    const id = messageId(m, i);
    return !covered.has(id) && !dropped?.has(id);
  });
  if (checkpoint) insertAfterInstructions(out, checkpoint);
  return out;
}

export const summarizingStrategy = defineStrategy({
  name: "summarizing",
  description: "past threshold × the model's window, summarise the old part into a checkpoint computed once and reused (originals kept)",
  optionsSchema: summarizingOptions as unknown as z.ZodType<SummarizingOptions>,
  create: (options, deps: StrategyDeps & SummarizingDeps) =>
    new SummarizingContext(options, {
      ...(deps.summarizer ? { summarizer: deps.summarizer } : {}),
      ...(deps.onCheckpoint ? { onCheckpoint: deps.onCheckpoint } : {}),
    }),
});
