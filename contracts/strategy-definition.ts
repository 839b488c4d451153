/**
 * How a compaction strategy is declared: a name, a zod schema for its options (strict, camelCase:
 * the JSON path of a bad option is reported as `strategies[i].<option>`), and a factory.
 *
 * ```ts
 * export const slidingWindowStrategy = defineStrategy({
 *   name: "sliding-window",
 *   description: "system + the most recent maxMessages messages",
 *   optionsSchema: z.object({ maxMessages: z.number().int().positive().default(100) }).strict(),
 *   create: (options) => new SlidingWindowCompaction(options),
 * });
 * ```
 *
 * `create` runs once per context manager (a strategy may keep state between windows, e.g. its
 * last cut); it gets the options already parsed and defaulted, and `deps` to build child
 * strategies (token-budget) through the same registry and validation.
 */
import type { ZodType } from "zod";
import type { CompactionStrategy } from "./compaction-strategy.js";

/** One entry of a `strategies` config array: `{ "use": "sliding-window", "maxMessages": 40 }`. */
export interface StrategySpec {
  readonly use: string;
  readonly [option: string]: unknown;
}

export interface StrategyDeps {
  /** JSON path of this strategy's spec, for errors (`strategies[2]`). */
  readonly path: string;
  /** Builds a child strategy; `path` is the child's JSON path for errors (`strategies[0].strategies[1]`). */
  createStrategy(spec: unknown, path: string): CompactionStrategy;
}

export interface StrategyDefinition<Options = unknown> {
  readonly name: string;
  /** One line for docs and `did you mean` listings. */
  readonly description: string;
  /** Options without `use`; strict (unknown keys rejected), defaults applied. */
  readonly optionsSchema: ZodType<Options>;
  create(options: Options, deps: StrategyDeps): CompactionStrategy;
}

/** A typed identity: lets `create` see the schema's output type. */
export function defineStrategy<Options>(definition: StrategyDefinition<Options>): StrategyDefinition<Options> {
  return Object.freeze(definition);
}

/** Any definition, whatever its options (registries hold these). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyStrategyDefinition = StrategyDefinition<any>;

/**
 * Name of the coordinator capability through which a host or plugin registers strategies for ONE
 * session: a list of definitions, registered before the context module mounts (config is JSON and
 * cannot carry a `create` function). The context manager's registry holds them over the built-ins;
 * another coordinator never sees them.
 */
export const STRATEGIES_CAPABILITY = "strategies";
