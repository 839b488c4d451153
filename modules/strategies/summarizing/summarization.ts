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
import { keepLastTurn, oldPart, replaceRange, snapToTurn } from "./old-part.js";
import { isSummaryMessage, makeSummaryMessage, summarizeOld, summaryTextOf } from "./summary-message.js";

export const summarizationOptions = z
  .object({
    recentTokenBudget: z.number().int().positive().default(8_000),
    minOldTokens: z.number().int().min(0).default(1_000),
    summaryMaxTokens: z.number().int().positive().default(1_000),
    targetRatio: z.number().gt(0).lte(1).default(0.7),
    timeoutMs: z.number().int().positive().default(30_000),
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

  constructor(
    readonly options: SummarizationOptions,
    readonly deps: SummarizerDeps = {},
  ) {}

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
    const cut = decided === 0 ? 0 : keepLastTurn(units, snapToTurn(units, decided));
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
    const old = oldPart(units, cut);
    if (old.messages.length === 0 || counter.countMessages(old.messages) < minOldTokens) return { messages: [...messages], extendable: true };

    const summary = await this.#summary(old.messages, old.ids, context);
    const remove = new Set(old.positions);
    const { explain } = context;
    if (summary.ok) {
      const id = String(summary.message.metadata?.id);
      const reason = explain.enabled ? `older than the most recent ${recentTokenBudget} tokens; summarized into ${id}` : "";
      old.ids.forEach((messageId, k) => old.messages[k] !== summary.message && explain.record(messageId, "summarized", this.name, reason));
      return { messages: replaceRange(messages, remove, summary.message), extendable: true };
    }
    // Fallback: drop the old part, but keep a summary the history already has.
    const kept = isSummaryMessage(old.messages[0]) ? old.messages[0] : undefined;
    if (kept) remove.delete(old.positions[0]!);
    const reason = explain.enabled ? `older than the most recent ${recentTokenBudget} tokens; dropped because the summarizer failed: ${summary.reason}` : "";
    old.ids.forEach((messageId, k) => old.messages[k] !== kept && explain.record(messageId, "dropped", this.name, reason));
    // Not extended: the next request asks the summarizer again.
    return { messages: replaceRange(messages, remove, undefined), extendable: false };
  }

  async #summary(old: readonly Message[], oldIds: readonly string[], context: CompactionContext): Promise<{ ok: true; message: Message } | { ok: false; reason: string }> {
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
    const { summarizer, outcome } = await summarizeOld(this.name, fresh, previous, context, { summarizer: this.deps.summarizer, ...this.options });
    if (!outcome.ok) return outcome;
    const covers = [...((previous?.metadata?.summary?.covers as string[] | undefined) ?? []), ...freshIds];
    const message = makeSummaryMessage(outcome.text, { covers, strategy: this.name, summarizer: summarizer.name });
    this.#last = { old: [...old], message };
    return { ok: true, message };
  }
}

export const summarizationStrategy = defineStrategy({
  name: "summarization",
  description: "keep the most recent recentTokenBudget tokens; summarise everything older into one summary message (updated, never stacked)",
  optionsSchema: summarizationOptions,
  create: (options, deps: StrategyDeps & SummarizerDeps) => new SummarizationCompaction(options, { ...(deps.summarizer ? { summarizer: deps.summarizer } : {}) }),
});

function startsWith<T>(list: readonly T[], prefix: readonly T[]): boolean {
  if (prefix.length > list.length) return false;
  for (let i = 0; i < prefix.length; i++) if (list[i] !== prefix[i]) return false;
  return true;
}
