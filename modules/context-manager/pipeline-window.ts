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
import { HistorySource, LogCursor, type CompactionPipeline, type MessageSource, type PipelineRun } from "@amplifier-ts/strategies";
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

  constructor(pipeline: CompactionPipeline) {
    this.pipeline = pipeline;
  }

  /** `history`: the stored history's live array (it only grows until a rewrite replaces it). */
  async run(history: readonly Message[], context: CompactionContext): Promise<PipelineOutput> {
    const run = await this.pipeline.runSource(new HistorySource(history), context);
    const { assembler, unchanged } = this.#assemblerFor(run.output);
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
