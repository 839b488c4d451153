/**
 * `defineCutStrategy`: a strategy that drops the OLDEST units of its input until what it keeps is
 * within a limit (sliding-window, truncation, selective-tool-call, message-window, token-window),
 * declared by what differs between them; the factory owns the rest.
 *
 * | the definition gives                          | the factory owns                                  |
 * |-----------------------------------------------|---------------------------------------------------|
 * | `name`, `description`, `options`: its own zod fields (`targetRatio`: the default of that option) | the options schema (the fields + `targetRatio`, strict), registration by name (a `defineStrategy` definition) |
 * | `weight`: how much a unit weighs (`also`: a second quantity) | the running sums, recounted only from the lowest unit that changed |
 * | `limit(options, scale)`: the most the kept units may weigh | the stepped cut (threshold → `targetRatio` × limit, kept while it fits) |
 * | `drops`: `tail` (default) or `groups` (old tool groups only) | the incremental output (O(new messages) while the input only grows), `compact` over arrays, `resetLog` |
 * | `reason(options, units, cut)`: explain's words | an explain record per dropped message           |
 * | `idle(options)`: options under which nothing is ever cut | a pass-through in O(1)                   |
 *
 * An example that compiles and runs: contracts/STRATEGIES.md, "A strategy that drops the oldest units".
 */
import { z } from "zod";
import type { CompactionContext, CompactionStrategy, Message, StrategyDefinition } from "@amplifier-ts/contracts";
import { defineStrategy } from "@amplifier-ts/contracts";
import type { HistoryUnits } from "./history-units.js";
import { IncrementalCut, type CutDrops, type UnitWeight } from "./incremental-cut.js";
import { ArraySource, type IncrementalStrategy, type LogStep, type MessageSource } from "./message-log.js";

/** The options every cut strategy has: how far a new cut goes below the limit (1: exactly to it). */
export interface CutOptions {
  readonly targetRatio: number;
}

/** A cut strategy's options schema: its own fields plus `targetRatio`, strict (unknown keys rejected). */
export type CutOptionsSchema<Shape extends z.ZodRawShape> = z.ZodObject<Shape & { targetRatio: z.ZodDefault<z.ZodNumber> }, z.core.$strict>;

/** The parsed options of a cut strategy whose own fields are `Shape`. */
export type CutOptionsOf<Shape extends z.ZodRawShape> = z.output<CutOptionsSchema<Shape>>;

/** One quantity the kept units must stay within. */
export interface CutQuantity<Options> {
  readonly weight: UnitWeight;
  /** The most the kept units may weigh; `scale` is 1 (the threshold) or targetRatio (a new cut's target). */
  readonly limit: (options: Options, scale: number) => number;
}

export interface CutStrategyConfig<Shape extends z.ZodRawShape, Options = CutOptionsOf<Shape>> extends CutQuantity<Options> {
  readonly name: string;
  /** One line for docs and `did you mean` listings. */
  readonly description: string;
  /** The strategy's own option fields, camelCase with their defaults; `targetRatio` is added. */
  readonly options: Shape;
  /** The default of `targetRatio`: 0.7 unless given (1: the cut sits exactly at the limit, no steps). */
  readonly targetRatio?: number;
  /** A second quantity, also within its limit (truncation: characters besides messages). */
  readonly also?: CutQuantity<Options>;
  /** `weight` reads the token counter: its sums are recounted when the request's counter changes. */
  readonly countsTokens?: boolean;
  /** What a cut drops; default `tail`. */
  readonly drops?: CutDrops;
  /** Options under which the strategy never cuts: its input is passed on as is. */
  readonly idle?: (options: Options) => boolean;
  /** Why a message before the cut at unit `cut` was dropped, for explain (one sentence, no period). */
  readonly reason: (options: Options, units: HistoryUnits, cut: number) => string;
}

/** A cut strategy; `create` makes a `Strategy`, which callers may also construct with parsed options. */
export interface CutStrategyDefinition<Shape extends z.ZodRawShape> extends StrategyDefinition<CutOptionsOf<Shape>> {
  readonly optionsSchema: CutOptionsSchema<Shape>;
  readonly Strategy: new (options: CutOptionsOf<Shape>) => CutStrategy<CutOptionsOf<Shape>>;
}

export class CutStrategy<Options> implements CompactionStrategy, IncrementalStrategy {
  readonly name: string;
  readonly #config: CutStrategyConfig<z.ZodRawShape, Options>;
  readonly #arrays = new ArraySource();
  readonly #cut: IncrementalCut;
  readonly #fits: (from: number, scale: number) => boolean;

  constructor(config: CutStrategyConfig<z.ZodRawShape, Options>, readonly options: Options) {
    this.name = config.name;
    this.#config = config;
    const { limit, also } = config;
    const cut = (this.#cut = new IncrementalCut(config.name, also ? [config.weight, also.weight] : [config.weight], {
      drops: config.drops ?? "tail",
      countsTokens: config.countsTokens ?? false,
    }));
    this.#fits = also
      ? (f, scale) => cut.kept(0, f) <= limit(options, scale) && cut.kept(1, f) <= also.limit(options, scale)
      : (f, scale) => cut.kept(0, f) <= limit(options, scale);
  }

  compact(messages: readonly Message[], context: CompactionContext): Message[] {
    return this.compactLog(this.#arrays.set(messages), context).output.items.slice();
  }

  resetLog(): void {
    this.#cut.reset();
  }

  compactLog(input: MessageSource, context: CompactionContext): LogStep {
    const config = this.#config;
    const options = this.options;
    if (config.idle?.(options)) return { output: input, changed: false };
    const units = this.#cut.sync(input, context);
    return this.#cut.cut(units, this.#fits, (options as CutOptions).targetRatio, context.explain, (cut) => config.reason(options, units, cut));
  }
}

/** A cut strategy's definition, registered by name like any `defineStrategy` definition. */
export function defineCutStrategy<Shape extends z.ZodRawShape>(config: CutStrategyConfig<Shape>): CutStrategyDefinition<Shape> {
  type Options = CutOptionsOf<Shape>;
  const targetRatio = z.number().gt(0).lte(1).default(config.targetRatio ?? 0.7);
  const optionsSchema = z.object({ ...config.options, targetRatio }).strict() as CutOptionsSchema<Shape>;
  const own = config as unknown as CutStrategyConfig<z.ZodRawShape, Options>;
  const Strategy = class extends CutStrategy<Options> {
    constructor(options: Options) {
      super(own, options);
    }
  };
  Object.defineProperty(Strategy, "name", { value: className(config.name) });
  const definition = defineStrategy<Options>({ name: config.name, description: config.description, optionsSchema, create: (options) => new Strategy(options) });
  return Object.freeze({ ...definition, optionsSchema, Strategy });
}

/** "sliding-window" → "SlidingWindowCut" (stack traces and the console name the strategy). */
function className(name: string): string {
  return `${name.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_, _sep: string, c: string) => c.toUpperCase())}Cut`;
}
