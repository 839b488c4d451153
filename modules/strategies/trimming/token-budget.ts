/**
 * `token-budget` {strategies = [], budget | model, triggerRatio = 0.8, targetRatio = 0.7}
 * (agents/context seed: TokenBudgetComposedStrategy; core contexts seed: token-budget).
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
import { getModelInfo } from "@amplifier-ts/core";
import { HistoryUnits, INSTRUCTION, messageId } from "../history-units.js";
import { describeFailure } from "../pipeline.js";
import { RunningTokens } from "../running-tokens.js";
import { SteppedCut, suffixSums } from "../stepped-cut.js";
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

export class TokenBudgetCompaction implements CompactionStrategy {
  readonly name = "token-budget";
  readonly #cut = new SteppedCut();
  readonly #modelWindow: number | undefined;

  constructor(
    readonly options: TokenBudgetOptions,
    readonly children: readonly CompactionStrategy[] = [],
  ) {
    this.#modelWindow = options.model === undefined ? undefined : getModelInfo(options.model)?.contextWindow;
  }

  /** The token limit for a request whose budget is `requestBudget`. */
  limit(requestBudget: number): number {
    const { budget, triggerRatio } = this.options;
    return budget ?? Math.floor(triggerRatio * (this.#modelWindow ?? requestBudget));
  }

  /** One running total for the input and one per child's output: each usually extends its previous value. */
  readonly #measures: RunningTokens[] = [];

  async compact(messages: readonly Message[], context: CompactionContext): Promise<readonly Message[]> {
    const limit = this.limit(context.budget);
    const measure = (ms: readonly Message[], slot: number) => requestTokens(ms, context, (this.#measures[slot] ??= new RunningTokens()));
    if (measure(messages, 0) <= limit) return [...messages];
    if (this.children.length === 0) return this.#dropOldest(messages, limit, context);
    let current: readonly Message[] = messages;
    for (let i = 0; i < this.children.length; i++) {
      const child = this.children[i]!;
      try {
        current = await child.compact(current, context);
      } catch (error) {
        if (context.signal?.aborted) throw error;
        await context.hooks?.emit("context:strategy_failed", describeFailure({ strategy: child.name, index: i, error }));
        continue;
      }
      if (measure(current, i + 1) <= limit) return current;
    }
    return current;
  }

  #dropOldest(messages: readonly Message[], limit: number, context: CompactionContext): Message[] {
    const { counter } = context;
    const units = new HistoryUnits(messages);
    let fixed = counter.replyPriming + (context.tools?.length ? counter.countTools(context.tools) : 0);
    messages.forEach((m, i) => {
      const u = units.unitOf[i]!;
      if (u === INSTRUCTION || (u >= 0 && units.units[u]!.critical)) fixed += counter.countMessage(m);
    });
    const sums = suffixSums(units, (u) => units.positions(u).reduce((n, i) => n + counter.countMessage(messages[i]!), 0));
    const cut = this.#cut.decide(units, (from, scale) => fixed + sums[from]! <= Math.floor(scale * limit), this.options.targetRatio);
    if (cut === 0) return [...messages];
    const { explain } = context;
    const reason = explain.enabled ? `oldest messages dropped to fit ${limit} tokens` : "";
    return units.keepFrom(cut, explain.enabled ? (m, i) => explain.record(messageId(m, i), "dropped", this.name, reason) : undefined);
  }
}

function requestTokens(messages: readonly Message[], context: CompactionContext, running: RunningTokens): number {
  const { counter, tools } = context;
  return running.measure(messages, counter) + counter.replyPriming + (tools?.length ? counter.countTools(tools) : 0);
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
        expected: "a model in the model registry (core/tokens), or `budget`",
        given: options.model,
        hint: "register the model with registerModel(), or give `budget` in tokens",
      });
    }
    const children = options.strategies.map((spec, i) => deps.createStrategy(spec, `${deps.path}.strategies[${i}]`));
    return new TokenBudgetCompaction(options, children);
  },
});
