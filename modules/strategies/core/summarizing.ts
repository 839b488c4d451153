/**
 * `summarizing` {threshold = 0.8, recentRatio = 0.5, summaryMaxTokens = 2000, contextWindow?,
 * timeoutMs = 30000} (core contexts seed: SummarizingContext), with a CHECKPOINT.
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
import type { CompactionContext, CompactionStrategy } from "../../../contracts/compaction-strategy.js";
import type { Message } from "../../../contracts/generated/message.js";
import { getModelInfo } from "../../../core/tokens/index.js";
import { ExtractiveSummarizer } from "../../summarizers/extractive-summarizer.js";
import { summarizeSafely } from "../../summarizers/summarizer-guard.js";
import { HistoryUnits, messageId } from "../history-units.js";
import { lowestFitting, suffixSums } from "../stepped-cut.js";
import { defineStrategy, type StrategyDeps } from "../strategy-definition.js";
import { insertAfterInstructions, keepLastTurn, oldPart, snapToTurn, unitTokens } from "./old-part.js";
import type { SummarizerDeps } from "./summarization.js";
import { coversFingerprint, isSummaryMessage, makeSummaryMessage, summaryTextOf } from "./summary-message.js";

export const summarizingOptions = z
  .object({
    threshold: z.number().gt(0).lte(1).default(0.8),
    recentRatio: z.number().gt(0).lt(1).default(0.5),
    summaryMaxTokens: z.number().int().positive().default(2_000),
    contextWindow: z.number().int().positive().optional(),
    timeoutMs: z.number().int().positive().default(30_000),
  })
  .strict()
  .refine((o) => o.recentRatio < o.threshold, { message: "recentRatio must be below threshold (the recent part must fit under the trigger)", path: ["recentRatio"] });
export type SummarizingOptions = z.output<typeof summarizingOptions>;

export interface SummarizingDeps extends SummarizerDeps {
  /** Told every NEW checkpoint (not reused ones), to persist it next to the history. */
  readonly onCheckpoint?: (message: Message) => void | Promise<void>;
}

export class SummarizingContext implements CompactionStrategy {
  readonly name = "summarizing";
  #checkpoint: Message | undefined;
  #verified: { checkpoint: Message; messages: readonly Message[] } | undefined;

  constructor(
    readonly options: SummarizingOptions,
    readonly deps: SummarizingDeps = {},
  ) {}

  /** The checkpoint in use (for tests and for modules that persist it themselves). */
  get checkpoint(): Message | undefined {
    return this.#checkpoint;
  }

  async compact(messages: readonly Message[], context: CompactionContext): Promise<Message[]> {
    const { counter, explain } = context;
    const window = this.options.contextWindow ?? getModelInfo(counter.model)?.contextWindow ?? context.budget;
    const trigger = this.options.threshold * window;
    const history = messages.filter((m) => !isCheckpoint(m));
    const checkpoint = this.#adopt(messages, history);
    const covered = new Set(checkpoint?.metadata.summary.covers ?? []);
    const view = withCheckpoint(history, covered, checkpoint);
    if (counter.countMessages(view) <= trigger) return this.#explained(view, history, covered, checkpoint, explain);

    // Past the threshold: the recent part is what fits recentRatio × window, from the newest end.
    const units = new HistoryUnits(history);
    const sums = suffixSums(units, unitTokens(units, (m) => counter.countMessage(m)));
    const recentBudget = this.options.recentRatio * window;
    const cut = keepLastTurn(units, snapToTurn(units, lowestFitting(units.length, (from) => sums[from]! <= recentBudget)));
    const old = oldPart(units, cut);
    const freshPositions = old.positions.filter((_, k) => !covered.has(old.ids[k]!));
    if (freshPositions.length === 0) return this.#explained(view, history, covered, checkpoint, explain);
    const fresh = freshPositions.map((i) => history[i]!);
    const freshIds = freshPositions.map((i) => messageId(history[i]!, i));

    const summarizer = context.summarizer ?? this.deps.summarizer ?? new ExtractiveSummarizer({ counter });
    const previousSummary = summaryTextOf(checkpoint);
    const outcome = await summarizeSafely(summarizer, fresh, {
      maxTokens: this.options.summaryMaxTokens,
      timeoutMs: this.options.timeoutMs,
      strategy: this.name,
      dropped: fresh.length,
      ...(previousSummary !== undefined ? { previousSummary } : {}),
      ...(context.hooks ? { hooks: context.hooks } : {}),
      ...(context.signal ? { signal: context.signal } : {}),
    });
    if (!outcome.ok) {
      const reason = explain.enabled ? `past ${this.options.threshold} × ${window} tokens; dropped because the summarizer failed: ${outcome.reason}` : "";
      freshIds.forEach((id) => explain.record(id, "dropped", this.name, reason));
      const dropped = new Set(freshIds);
      return this.#explained(withCheckpoint(history, covered, checkpoint, dropped), history, covered, checkpoint, explain);
    }
    const covers = [...covered, ...freshIds];
    const byId = new Map(history.map((m, i) => [messageId(m, i), m] as const));
    const fingerprint = coversFingerprint(covers.map((id) => byId.get(id)!));
    const next = makeSummaryMessage(outcome.text, { covers, fingerprint, strategy: this.name, summarizer: summarizer.name }) as Checkpoint;
    this.#checkpoint = next;
    try {
      await this.deps.onCheckpoint?.(next);
    } catch {
      // Best effort (see the table above): the checkpoint still serves this instance.
    }
    const nextCovered = new Set(next.metadata.summary.covers);
    return this.#explained(withCheckpoint(history, nextCovered, next), history, nextCovered, next, explain);
  }

  /** The checkpoint to use: this instance's, or the latest stored one when it covers more; stale ones ignored. */
  #adopt(messages: readonly Message[], history: readonly Message[]): Checkpoint | undefined {
    let stored: Checkpoint | undefined;
    for (let i = messages.length - 1; i >= 0 && !stored; i--) if (isCheckpoint(messages[i]!)) stored = messages[i] as Checkpoint;
    const mine = this.#checkpoint as Checkpoint | undefined;
    let best = mine;
    if (stored && (!mine || stored.metadata.summary.covers.length > mine.metadata.summary.covers.length)) best = stored;
    if (!best) return undefined;
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

  #explained(window: Message[], history: readonly Message[], covered: ReadonlySet<string>, checkpoint: Message | undefined, explain: CompactionContext["explain"]): Message[] {
    if (explain.enabled && checkpoint) {
      const reason = `covered by checkpoint ${String(checkpoint.metadata?.id)} (computed once, reused)`;
      history.forEach((m, i) => {
        const id = messageId(m, i);
        if (covered.has(id)) explain.record(id, "summarized", this.name, reason);
      });
    }
    return window;
  }
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
