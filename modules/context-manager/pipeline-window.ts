/**
 * The configured compaction pipeline (config `strategies`) over the stored history, and the window
 * assembler over its output that enforces the final budget and the window invariants.
 *
 * The assembler follows the pipeline's output log (message-log.ts): appended messages are
 * appended, a rewrite from position p (a strategy's cut moved) rolls the assembler back to p
 * (WindowAssembler.truncate) — O(what changed), and its hysteresis cut holds so the provider's
 * prompt cache keeps hitting; only a new source (a rewritten history) rebuilds it — O(output).
 */
import type { CompactionContext, Message } from "@amplifier-ts/contracts";
import { ArraySource, HistorySource, LogCursor, type CompactionPipeline, type MessageSource, type PipelineRun } from "@amplifier-ts/strategies";
import { callsOf, hasTurnContent, isTurnNote, resultIdsOf } from "@amplifier-ts/contracts";
import { WindowAssembler } from "@amplifier-ts/window";

export interface PipelineOutput {
  readonly run: PipelineRun;
  /** The assembler over `run.messages`, up to date. */
  readonly assembler: WindowAssembler;
  /** Output positions [0, unchanged) hold the very objects the last run's output held there (what follows it may be cached by position). */
  readonly unchanged: number;
}

export class PipelineWindow {
  readonly pipeline: CompactionPipeline;
  #assembler: WindowAssembler | undefined;
  /** Where the assembler stands in the pipeline's output (message-log.ts). */
  readonly #cursor = new LogCursor();
  /** The pipeline's output with the turn in progress put back, when a strategy dropped it. */
  readonly #restored = new ArraySource();

  constructor(pipeline: CompactionPipeline) {
    this.pipeline = pipeline;
  }

  /** Units the assembler's last windows priced by bounds and did not count yet. */
  get pending(): number {
    return this.#assembler?.pending ?? 0;
  }

  /** Counts what the assembler's last windows priced by bounds (idle work, idle-count.ts). */
  settle(): void {
    this.#assembler?.settle();
  }

  /** `history`: the stored history's live array (it only grows until a rewrite replaces it). */
  async run(history: readonly Message[], context: CompactionContext): Promise<PipelineOutput> {
    const piped = await this.pipeline.runSource(new HistorySource(history), context);
    const output = withTurnInProgress(history, piped.output, this.#restored);
    const run = output === piped.output ? piped : { ...piped, messages: output.items, output };
    const { assembler, unchanged } = this.#assemblerFor(output);
    return { run, assembler, unchanged };
  }

  #assemblerFor(output: MessageSource): { assembler: WindowAssembler; unchanged: number } {
    let from = this.#cursor.next(output);
    const items = output.items;
    // Another source (token-budget stopped at another child; a strategy's array output): keep what
    // both start with — reference comparisons, far cheaper than re-indexing and recounting.
    if (this.#assembler && from === 0) from = this.#assembler.sharedPrefix(items);
    if (!this.#assembler || from === 0) {
      this.#assembler = new WindowAssembler(items);
      return { assembler: this.#assembler, unchanged: 0 };
    }
    // Rewritten from `from` (a cut moved): roll back to it and append — O(what changed).
    this.#assembler.truncate(from);
    for (let i = this.#assembler.length; i < items.length; i++) this.#assembler.append(items[i]!);
    return { assembler: this.#assembler, unchanged: from };
  }
}

/**
 * The turn in progress is never dropped by a pipeline (contracts/STRATEGIES.md): the built-in
 * strategies keep it (HistoryIndex.inProgressGroup); a strategy that drops it anyway — a third
 * party's — gets it put back: the stored messages from the latest assistant message with tool
 * calls on (its results, the notes after it) replace whatever the output kept of them, verbatim,
 * at the end. Cost: O(those messages) when the output ends with them, as the built-ins' does; a
 * full scan of the output only when it does not.
 */
function withTurnInProgress(history: readonly Message[], output: MessageSource, scratch: ArraySource): MessageSource {
  const start = turnInProgressStart(history);
  if (start < 0) return output;
  const items = output.items;
  const turn = history.slice(start);
  const keys = new Set<unknown>();
  for (const m of turn) {
    keys.add(m);
    const id = m.metadata?.id;
    if (typeof id === "string") keys.add(id);
  }
  const matches = (m: Message) => keys.has(m) || (typeof m.metadata?.id === "string" && keys.has(m.metadata.id));
  let found = 0;
  for (let i = items.length - 1; i >= 0 && i >= items.length - turn.length; i--) if (matches(items[i]!)) found++;
  if (found === turn.length) return output;
  const kept = items.filter((m) => !matches(m));
  return scratch.set([...kept, ...turn]);
}

/** Index of the latest assistant message with tool calls when only results and notes follow it; -1 when none. */
function turnInProgressStart(history: readonly Message[]): number {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role === "tool" || (m.role === "user" && resultIdsOf(m).length > 0 && !hasTurnContent(m))) continue;
    if (isTurnNote(m)) continue;
    return m.role === "assistant" && callsOf(m).length > 0 ? i : -1;
  }
  return -1;
}
