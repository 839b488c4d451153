/**
 * The configured compaction pipeline (config `strategies`) over the stored history, and the window
 * assembler over its output that enforces the final budget and the window invariants.
 *
 * The assembler is reused while the pipeline's output extends its previous output — O(new
 * messages), and its hysteresis cut holds so the provider's prompt cache keeps hitting; otherwise
 * (a strategy rewrote something earlier) it is rebuilt over the output — O(output).
 */
import type { CompactionContext, Message } from "@amplifier-ts/contracts";
import type { CompactionPipeline, PipelineRun } from "@amplifier-ts/strategies";
import { WindowAssembler } from "@amplifier-ts/window";

export interface PipelineOutput {
  readonly run: PipelineRun;
  /** The assembler over `run.messages`, up to date. */
  readonly assembler: WindowAssembler;
}

export class PipelineWindow {
  readonly pipeline: CompactionPipeline;
  #assembler: WindowAssembler | undefined;
  #previous: readonly Message[] = [];

  constructor(pipeline: CompactionPipeline) {
    this.pipeline = pipeline;
  }

  async run(history: readonly Message[], context: CompactionContext): Promise<PipelineOutput> {
    const run = await this.pipeline.run(history, context);
    return { run, assembler: this.#assemblerFor(run.messages) };
  }

  #assemblerFor(output: readonly Message[]): WindowAssembler {
    const previous = this.#previous;
    let extends_ = this.#assembler !== undefined && output.length >= previous.length;
    for (let i = 0; extends_ && i < previous.length; i++) if (output[i] !== previous[i]) extends_ = false;
    if (!extends_ || !this.#assembler) {
      this.#assembler = new WindowAssembler(output);
    } else {
      for (let i = previous.length; i < output.length; i++) this.#assembler.append(output[i]!);
    }
    this.#previous = output;
    return this.#assembler;
  }
}
