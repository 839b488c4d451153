/**
 * CompactionPipeline: strategies in order, each fed the previous one's output. Cheap, lossless strategies first (tool-result-compaction), aggressive ones last
 * (sliding-window, summarization). An empty pipeline returns the history unchanged (same
 * messages, new array).
 *
 * Failure policy (contracts/STRATEGIES.md): a strategy that throws, or returns something that is
 * not an array of messages, is SKIPPED — its input goes on to the next strategy — and the run
 * reports it in `failed`; the context manager emits `context:strategy_failed` and the request
 * still succeeds (the window assembler enforces the budget and invariants afterwards anyway).
 * An aborted signal is the one exception: it is rethrown.
 */
import type { CompactionContext, CompactionStrategy, CompactOptions, CompactResult } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { createError, isAmplifierError } from "@amplifier-ts/contracts";
import { differs, runStep, type LogStep, type MessageSource } from "./message-log.js";

/** A strategy that summarises its next cut on demand (context.compact({ focus })) at its next run. */
export interface ManualCompaction {
  readonly name: string;
  requestCompaction(options?: CompactOptions): Promise<CompactResult>;
  /** Withdraws the request when the strategy was not run for it. */
  cancelCompaction(reason: string): void;
}

export interface StrategyFailure {
  readonly strategy: string;
  /** Position in the pipeline. */
  readonly index: number;
  readonly error: unknown;
}

export interface PipelineRun {
  readonly messages: readonly Message[];
  /** Names of the strategies whose output differed from their input, in order. */
  readonly changed: string[];
  readonly failed: StrategyFailure[];
  readonly durationMs: number;
}

export class CompactionPipeline implements CompactionStrategy {
  readonly name = "pipeline";
  readonly strategies: readonly CompactionStrategy[];

  constructor(strategies: readonly CompactionStrategy[] = []) {
    this.strategies = Object.freeze([...strategies]);
  }

  get isEmpty(): boolean {
    return this.strategies.length === 0;
  }

  /** A pipeline is itself a strategy: it can be nested (token-budget's children). */
  async compact(messages: readonly Message[], context: CompactionContext): Promise<readonly Message[]> {
    return (await this.run(messages, context)).messages;
  }

  /**
   * The incremental run: `source` is the stored history (or any MessageSource); each
   * built-in strategy reads its predecessor's output log and keeps its own, so a request whose
   * history only grew costs O(new messages) per strategy. Same messages as `run`; the returned
   * `output` is the last strategy's live log (read it, do not keep it across requests).
   */
  async runSource(source: MessageSource, context: CompactionContext): Promise<PipelineRun & { output: MessageSource }> {
    const started = performance.now();
    let current: MessageSource = source;
    const changed: string[] = [];
    const failed: StrategyFailure[] = [];
    for (let i = 0; i < this.strategies.length; i++) {
      const strategy = this.strategies[i]!;
      let step: LogStep;
      try {
        step = await runStep(strategy, current, context, (output) => checkOutput(strategy, output));
      } catch (error) {
        if (context.signal?.aborted) throw error;
        failed.push({ strategy: strategy.name, index: i, error });
        continue;
      }
      if (step.changed) changed.push(strategy.name);
      current = step.output;
    }
    return { messages: current.items, output: current, changed, failed, durationMs: performance.now() - started };
  }

  /** Stops every strategy's background work (CompactionStrategy.close) and awaits it; the context manager's close() calls it. */
  async close(): Promise<void> {
    await Promise.all(this.strategies.map((s) => s.close?.()));
  }

  /**
   * The strategies that take a manual compaction (the summarizing ones, nested pipelines
   * searched too), in pipeline order.
   */
  manualCompactors(): ManualCompaction[] {
    const found: ManualCompaction[] = [];
    const walk = (list: readonly CompactionStrategy[]) => {
      for (const s of list) {
        if (typeof (s as Partial<ManualCompaction>).requestCompaction === "function") found.push(s as CompactionStrategy & ManualCompaction);
        // A pipeline's strategies, token-budget's children.
        const inner = (s as { strategies?: unknown }).strategies ?? (s as { children?: unknown }).children;
        if (Array.isArray(inner)) walk(inner as CompactionStrategy[]);
      }
    };
    walk(this.strategies);
    return found;
  }

  async run(messages: readonly Message[], context: CompactionContext): Promise<PipelineRun> {
    const started = performance.now();
    let current: readonly Message[] = [...messages];
    const changed: string[] = [];
    const failed: StrategyFailure[] = [];
    for (let i = 0; i < this.strategies.length; i++) {
      const strategy = this.strategies[i]!;
      let next: readonly Message[];
      try {
        next = checkOutput(strategy, await strategy.compact(current, context));
      } catch (error) {
        if (context.signal?.aborted) throw error;
        failed.push({ strategy: strategy.name, index: i, error });
        continue;
      }
      if (differs(current, next)) changed.push(strategy.name);
      current = next;
    }
    return { messages: current, changed, failed, durationMs: performance.now() - started };
  }
}

/**
 * Strategies whose output is not re-checked message by message: the built-ins (their tests prove
 * what they return). Checking every element touches every message object of a 10k history on
 * every request (≈ 1 ms); a third party's strategy is still checked in full.
 */
const trusted = new WeakSet<CompactionStrategy>();

/** @internal The registry marks the strategies it builds from its built-in definitions. */
export function markTrusted(strategy: CompactionStrategy): void {
  trusted.add(strategy);
}

export { differs };

function checkOutput(strategy: CompactionStrategy, output: unknown): readonly Message[] {
  if (Array.isArray(output) && trusted.has(strategy)) return output as readonly Message[];
  if (Array.isArray(output) && output.every((m) => typeof m === "object" && m !== null && typeof (m as Message).role === "string")) {
    return output as readonly Message[];
  }
  throw createError("STRATEGY_FAILED", `strategy "${strategy.name}" returned something that is not an array of messages`, {
    module: strategy.name,
    expected: "Message[]",
    given: output,
  });
}

/** The error as the `context:strategy_failed` event reports it. */
export function describeFailure(failure: StrategyFailure): { strategy: string; index: number; error: string; code?: string } {
  const { error } = failure;
  const message = error instanceof Error ? error.message : String(error);
  return {
    strategy: failure.strategy,
    index: failure.index,
    error: message,
    ...(isAmplifierError(error) ? { code: error.code } : {}),
  };
}
