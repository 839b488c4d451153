/**
 * `token-budget` {strategies = [], budget | model, triggerRatio = 0.8, targetRatio = 0.7}.
 *
 * | limit (tokens of the request: messages + reply priming + tool schemas) | when            |
 * |---------------------------------------------------------------|-----------------------------|
 * | `budget`                                                      | given                       |
 * | ⌊triggerRatio × the model's context window⌋ (model registry)  | `model` given               |
 * | ⌊triggerRatio × the request's budget⌋                         | neither                     |
 *
 * With children (cheap first, aggressive last): when the history is over the limit, applies them
 * one at a time, re-measuring after each, and stops at the FIRST that makes it fit; exhausted →
 * best effort (the window assembler still enforces the real budget). A child that throws is
 * skipped (contracts/STRATEGIES.md, failure policy) and reported as `context:strategy_failed`.
 * Without children: drops the oldest units until it fits, in steps (the cut goes down to
 * targetRatio × the limit and stays while it fits; stepped-cut.ts).
 */
import { z } from "zod";
import type { CompactionContext, CompactionStrategy } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import { getModelInfo } from "@amplifier-ts/tokens";
import { describeFailure } from "../pipeline.js";
import { IncrementalCut, unitTokens } from "../incremental-cut.js";
import { ArraySource, RunningSourceTokens, runStep, type IncrementalStrategy, type LogStep, type MessageSource } from "../message-log.js";
import { defineStrategy } from "@amplifier-ts/contracts";

export const tokenBudgetOptions = z
  .object({
    strategies: z.array(z.looseObject({ use: z.string() })).default([]),
    budget: z.number().int().positive().optional(),
    model: z.string().min(1).optional(),
    triggerRatio: z.number().gt(0).lte(1).default(0.8),
    targetRatio: z.number().gt(0).lte(1).default(0.7),
  })
  .strict()
  .refine((o) => o.budget === undefined || o.model === undefined, { message: "give budget or model, not both", path: ["model"] });
export type TokenBudgetOptions = z.output<typeof tokenBudgetOptions>;

export class TokenBudgetCompaction implements CompactionStrategy, IncrementalStrategy {
  readonly name = "token-budget";
  readonly #modelWindow: number | undefined;

  constructor(
    readonly options: TokenBudgetOptions,
    readonly children: readonly CompactionStrategy[] = [],
  ) {
    this.#modelWindow = options.model === undefined ? undefined : getModelInfo(options.model)?.contextWindow;
  }

  /** Stops the children's background work (CompactionStrategy.close). */
  async close(): Promise<void> {
    await Promise.all(this.children.map((c) => c.close?.()));
  }

  /** The token limit for a request whose budget is `requestBudget`. */
  limit(requestBudget: number): number {
    const { budget, triggerRatio } = this.options;
    return budget ?? Math.floor(triggerRatio * (this.#modelWindow ?? requestBudget));
  }

  /** One running total for the input and one per child's output: each usually extends its previous value. */
  readonly #measures: RunningSourceTokens[] = [];
  readonly #arrays = new ArraySource();
  /** Without children: the oldest units dropped, on token sums grown with the input. */
  readonly #cut = new IncrementalCut(this.name, [unitTokens], { drops: "tail", countsTokens: true });

  async compact(messages: readonly Message[], context: CompactionContext): Promise<readonly Message[]> {
    return (await this.compactLog(this.#arrays.set(messages), context)).output.items.slice();
  }

  resetLog(): void {
    this.#cut.reset();
    this.#measures.length = 0;
  }

  async compactLog(input: MessageSource, context: CompactionContext): Promise<LogStep> {
    const limit = this.limit(context.budget);
    // Only "does it fit?" is asked: counting stops once a source is known to be over the limit.
    const measure = (source: MessageSource, slot: number) => requestTokens(source, context, (this.#measures[slot] ??= new RunningSourceTokens()), limit);
    if (measure(input, 0) <= limit) return { output: input, changed: false };
    if (this.children.length === 0) return this.#dropOldest(input, limit, context);
    let current: MessageSource = input;
    let changed = false;
    for (let i = 0; i < this.children.length; i++) {
      const child = this.children[i]!;
      try {
        const step = await runStep(child, current, context);
        current = step.output;
        changed ||= step.changed;
      } catch (error) {
        if (context.signal?.aborted) throw error;
        await context.hooks?.emit("context:strategy_failed", describeFailure({ strategy: child.name, index: i, error }));
        continue;
      }
      if (measure(current, i + 1) <= limit) return { output: current, changed };
    }
    return { output: current, changed };
  }

  #dropOldest(input: MessageSource, limit: number, context: CompactionContext): LogStep {
    const { counter } = context;
    const units = this.#cut.sync(input, context);
    const messages = units.messages;
    const { instructions, criticalUnits } = units.index;
    let fixed = counter.replyPriming + (context.tools?.length ? counter.countTools(context.tools) : 0);
    for (const i of instructions) fixed += counter.countMessage(messages[i]!);
    for (const u of criticalUnits) for (const member of units.units[u]!.members) if (member.stored >= 0) fixed += counter.countMessage(messages[member.stored]!);
    const fits = (f: number, scale: number) => fixed + this.#cut.kept(0, f) <= Math.floor(scale * limit);
    return this.#cut.cut(units, fits, this.options.targetRatio, context.explain, () => `oldest messages dropped to fit ${limit} tokens`);
  }
}

function requestTokens(source: MessageSource, context: CompactionContext, running: RunningSourceTokens, limit: number): number {
  const { counter, tools } = context;
  const overhead = counter.replyPriming + (tools?.length ? counter.countTools(tools) : 0);
  return running.measure(source, counter, limit - overhead) + overhead;
}

export const tokenBudgetStrategy = defineStrategy({
  name: "token-budget",
  description: "apply child strategies until the history fits budget (or triggerRatio × the model's window); none: drop oldest",
  optionsSchema: tokenBudgetOptions,
  create: (options, deps) => {
    if (options.model !== undefined && getModelInfo(options.model) === undefined) {
      throw createError("INVALID_STRATEGY_OPTIONS", `unknown model "${options.model}"`, {
        module: "token-budget",
        path: `${deps.path}.model`,
        expected: "a model in the model registry (@amplifier-ts/tokens), or `budget`",
        given: options.model,
        hint: "register the model with registerModel(), or give `budget` in tokens",
      });
    }
    const children = options.strategies.map((spec, i) => deps.createStrategy(spec, `${deps.path}.strategies[${i}]`));
    return new TokenBudgetCompaction(options, children);
  },
});
