/**
 * Background summarization (`"background": true` on `summarization` and `summarizing`): the
 * summary of the part a strategy will cut is prepared ahead, off the turn's path, and swapped in
 * when the window would overflow.
 *
 * | rule             | semantics                                                                            |
 * |------------------|--------------------------------------------------------------------------------------|
 * | lower watermark  | once the window passes the strategy's `prepareAt`, the summary of what the next cut removes is prepared (`prepare`); the turn does not wait for it |
 * | one in flight    | per strategy instance (= per session): a request while one runs is remembered and used by the next attempt |
 * | cancellable      | `cancel()` aborts the call (its signal) and the retry timer; `close()` does that and awaits the call |
 * | failure          | `context:summary_failed` { background: true, attempt, retryInMs }, retried after `retryDelayMs` × 2^(attempt−1), at most `retryMaxMs`; nothing is dropped meanwhile (the window's ladder fits the turn) |
 * | never lost work  | a ready summary is kept until it is swapped; a later cut summarises only what it does not cover, as an update of it (previousSummary) |
 * | check            | before anything is replaced (summary-check.ts): non-empty, under `summaryMaxTokens`, names the open task and the files/ids the cut part mentions, and no `context:summary_check` handler denies it; a failure emits `context:summary_rejected` and counts as a failed attempt |
 * | ready            | `context:summary_prepared`; the strategy takes it (`take`) at its next overflow and emits `context:summary_swapped` |
 */
import { z } from "zod";
import type { CompactionContext, Message, Summarizer } from "@amplifier-ts/contracts";
import { checkSummary, summaryFacts, type SummaryCheckShares } from "./summary-check.js";
import { summarizeOld } from "./summary-message.js";

/** The options both summarizing strategies take for background preparation (their own `prepareAt` aside). */
export const backgroundShape = {
  background: z.boolean().default(false),
  /** At overflow with no summary ready: wait for it (true) instead of the window's ladder for this turn. */
  wait: z.boolean().default(false),
  retryDelayMs: z.number().int().positive().default(2_000),
  retryMaxMs: z.number().int().positive().default(60_000),
  check: z
    .object({
      /** Share of the open task's key terms the summary must contain. */
      task: z.number().min(0).max(1).default(0.5),
      /** Share of the cut part's most frequent files/ids (up to 10) the summary must name. */
      mentions: z.number().min(0).max(1).default(0.5),
    })
    .strict()
    .default({ task: 0.5, mentions: 0.5 }),
  /**
   * The re-injection manifest: units of the cut part kept verbatim after a swap (instructions are
   * never cut). `plan`: tool names whose latest call (with its results) is the current plan;
   * `results`: the last `last` calls of these tools (files read, results) with their results.
   */
  reinject: z
    .object({
      plan: z.array(z.string().min(1)).default([]),
      results: z.object({ tools: z.array(z.string().min(1)).min(1), last: z.number().int().min(1) }).strict().optional(),
    })
    .strict()
    .default({ plan: [] }),
};

export interface BackgroundOptions {
  readonly summaryMaxTokens: number;
  readonly timeoutMs: number;
  readonly retryDelayMs: number;
  readonly retryMaxMs: number;
  readonly check: SummaryCheckShares;
}

/** What a summary is to stand for: the messages no summary covers yet, and the summary it updates. */
export interface SummaryTarget {
  readonly fresh: readonly Message[];
  readonly freshIds: readonly string[];
  /** The summary message in the window now, updated by this one (its text is the previousSummary). */
  readonly base: Message | undefined;
}

export interface PreparedSummary extends SummaryTarget {
  readonly text: string;
  readonly summarizer: string;
  readonly tokens: number;
}

export type SummaryRun = { ok: true; prepared: PreparedSummary } | { ok: false; reason: string };

interface Job {
  readonly promise: Promise<void>;
  readonly controller: AbortController;
}

export class BackgroundSummaries {
  readonly #strategy: string;
  readonly #options: BackgroundOptions;
  readonly #summarizer: Summarizer | undefined;
  #ready: PreparedSummary | undefined;
  #job: Job | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The newest target asked for while a call or a retry was pending: the next attempt uses it. */
  #pending: { target: SummaryTarget; context: CompactionContext } | undefined;
  /** Consecutive failed attempts (0 after a success): the backoff's exponent. */
  #failures = 0;
  #closed = false;
  /** Calls started (tests, the bench). */
  calls = 0;

  constructor(strategy: string, options: BackgroundOptions, summarizer: Summarizer | undefined) {
    this.#strategy = strategy;
    this.#options = options;
    this.#summarizer = summarizer;
  }

  /** The checked summary waiting for its swap. */
  get ready(): PreparedSummary | undefined {
    return this.#ready;
  }

  /** Whether a call is in flight or a retry is scheduled. */
  get busy(): boolean {
    return this.#job !== undefined || this.#timer !== undefined;
  }

  /**
   * Prepares `target` in the background unless a summary of it (or of a prefix of it, over the
   * same base) is ready or being prepared; never waits. A ready summary over another base (the
   * window's summary changed meanwhile) is discarded.
   */
  prepare(target: SummaryTarget, context: CompactionContext): void {
    if (this.#closed || target.fresh.length === 0) return;
    const ready = this.#ready;
    if (ready && ready.base === target.base && isPrefix(ready.fresh, target.fresh)) return;
    this.#ready = undefined;
    if (this.busy) {
      this.#pending = { target, context };
      return;
    }
    this.#start(target, context);
  }

  /** The ready summary, handed over once (the strategy swaps it in or drops it). */
  take(): PreparedSummary | undefined {
    const ready = this.#ready;
    this.#ready = undefined;
    return ready;
  }

  /**
   * Waits for the call in flight (wait mode); with none in flight and `target` given, starts one
   * now (a scheduled retry is brought forward) and waits for it.
   */
  async settle(target?: SummaryTarget, context?: CompactionContext): Promise<void> {
    if (this.#closed) return;
    if (!this.#job && target && context && !this.#ready) {
      this.#clearTimer();
      this.#pending = undefined;
      this.#start(target, context);
    }
    await this.#job?.promise;
  }

  /**
   * Manual compaction: the call in flight and any retry are cancelled, `target` is summarised now
   * (awaited) with `focus`, and checked. Nothing is kept for a later swap: the caller swaps it.
   */
  async runNow(target: SummaryTarget, context: CompactionContext, focus: string | undefined): Promise<SummaryRun> {
    this.cancel();
    this.#ready = undefined;
    return this.#run(target, context, { manual: true, focus, signal: context.signal, attempt: 1, retryInMs: undefined });
  }

  /** Aborts the call in flight and the retry timer (nothing else is started until the next prepare). */
  cancel(): void {
    this.#clearTimer();
    this.#pending = undefined;
    this.#job?.controller.abort(new Error("background summary cancelled"));
  }

  /** Stops the background work and resolves once no call is left in flight; nothing starts afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#ready = undefined;
    const job = this.#job;
    this.cancel();
    await job?.promise;
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #delay(failures: number): number {
    return Math.min(this.#options.retryMaxMs, this.#options.retryDelayMs * 2 ** Math.max(0, failures - 1));
  }

  #start(target: SummaryTarget, context: CompactionContext): void {
    const controller = new AbortController();
    const attempt = this.#failures + 1;
    const retryInMs = this.#delay(attempt);
    this.calls++;
    const promise = this.#run(target, context, { manual: false, focus: undefined, signal: controller.signal, attempt, retryInMs })
      .then(
        (run) => {
          if (controller.signal.aborted || this.#closed) return;
          if (run.ok) {
            this.#failures = 0;
            this.#ready = run.prepared;
            this.#pending = undefined;
            return;
          }
          this.#failures++;
          this.#retryAfter(retryInMs, target, context);
        },
        () => {
          // Aborted (cancel, close): nothing to report, nothing kept.
        },
      )
      .finally(() => {
        if (this.#job?.promise === promise) this.#job = undefined;
      });
    this.#job = { promise, controller };
  }

  #retryAfter(delay: number, target: SummaryTarget, context: CompactionContext): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const next = this.#pending ?? { target, context };
      this.#pending = undefined;
      if (!this.#closed) this.#start(next.target, next.context);
    }, delay);
    this.#timer.unref?.();
  }

  async #run(target: SummaryTarget, context: CompactionContext, run: { manual: boolean; focus: string | undefined; signal: AbortSignal | undefined; attempt: number; retryInMs: number | undefined }): Promise<SummaryRun> {
    const started = performance.now();
    const { summarizer, outcome } = await summarizeOld(this.#strategy, target.fresh, target.base, context, { summarizer: this.#summarizer, ...this.#options }, {
      acceptEmpty: true,
      ...(run.manual ? {} : { background: { attempt: run.attempt, ...(run.retryInMs !== undefined ? { retryInMs: run.retryInMs } : {}) } }),
      ...(run.signal ? { signal: run.signal } : {}),
      ...(run.focus !== undefined ? { focus: run.focus } : {}),
    });
    if (!outcome.ok) return { ok: false, reason: outcome.reason };
    if (run.signal?.aborted) return { ok: false, reason: "cancelled" };
    const facts = summaryFacts(target.fresh);
    const verdict = await checkSummary(outcome.text, facts, {
      maxTokens: this.#options.summaryMaxTokens,
      counter: context.counter,
      shares: this.#options.check,
      hooks: context.hooks,
      strategy: this.#strategy,
      summarizer: summarizer.name,
      covers: target.fresh.length,
    });
    if (!verdict.ok) {
      await context.hooks
        ?.emit("context:summary_rejected", { strategy: this.#strategy, summarizer: summarizer.name, reason: verdict.reason, ...(verdict.missing.length ? { missing: verdict.missing } : {}), background: !run.manual })
        .catch(() => undefined);
      return { ok: false, reason: verdict.reason };
    }
    const tokens = context.counter.countText(outcome.text);
    const prepared: PreparedSummary = { ...target, text: outcome.text, summarizer: summarizer.name, tokens };
    if (!run.manual) {
      await context.hooks
        ?.emit("context:summary_prepared", { strategy: this.#strategy, summarizer: summarizer.name, covers: target.fresh.length, tokens, durationMs: performance.now() - started, attempt: run.attempt })
        .catch(() => undefined);
    }
    return { ok: true, prepared };
  }
}

function isPrefix<T>(prefix: readonly T[], list: readonly T[]): boolean {
  if (prefix.length > list.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== list[i]) return false;
  return true;
}
