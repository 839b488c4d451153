/**
 * Strategy registry: name → definition, and the one place a `strategies` config entry becomes a
 * strategy. Options are validated when the context module is created (not when a window is
 * assembled), with errors a user can act on:
 *
 * | problem                         | code                      | details                                        |
 * |---------------------------------|---------------------------|------------------------------------------------|
 * | entry is not `{ "use": "…" }`   | INVALID_STRATEGY_OPTIONS  | path `strategies[i].use`, expected, given      |
 * | unknown strategy name           | UNKNOWN_STRATEGY          | path `strategies[i].use`, `did you mean`, the known names |
 * | unknown or bad option           | INVALID_STRATEGY_OPTIONS  | module = strategy, path `strategies[i].maxChars`, expected, given, hint (`max_chars` → `did you mean "maxChars"?`) |
 *
 * Registries are instances, one per context manager: each manager's registry holds what was
 * registered for it (its init's `strategyDefinitions`, the coordinator capability "strategies")
 * and reads through to its parent, the built-in catalogue `strategyRegistry`. So a strategy
 * registered for one session is unknown in another.
 *
 * | registered on                                 | seen by                                       |
 * |-----------------------------------------------|-----------------------------------------------|
 * | a manager's registry (`createStrategyRegistry`) | that manager only                           |
 * | `strategyRegistry` (the built-in catalogue)   | every manager in the process (kept for existing callers) |
 */
import type { CompactionStrategy } from "@amplifier-ts/contracts";
import { didYouMean } from "@amplifier-ts/core";
import { createError, parseValid } from "@amplifier-ts/contracts";
import { trimmingStrategies } from "./trimming/index.js";
import { summarizingStrategies } from "./summarizing/index.js";
import { CompactionPipeline, markTrusted } from "./pipeline.js";
import { selectorStrategies } from "./selectors/index.js";
import { recallStrategy } from "./recall.js";
import type { AnyStrategyDefinition, StrategyDeps } from "@amplifier-ts/contracts";

/** Host services handed to strategies besides their options (keys other than path/createStrategy). */
export type StrategyServices = Readonly<Record<string, unknown>>;

export interface StrategyRegistryOptions {
  /** Read through when a name is not registered here (a manager's registry → the built-in catalogue). */
  readonly parent?: StrategyRegistry;
  /**
   * Whether the constructor's definitions are trusted: their output is not re-checked per message.
   * Default true (the built-ins); false for a user's definitions.
   */
  readonly trusted?: boolean;
}

export class StrategyRegistry {
  readonly #definitions = new Map<string, AnyStrategyDefinition>();
  /** Definitions given to the constructor (the built-ins): their output is not re-checked per message. */
  readonly #trusted = new WeakSet<AnyStrategyDefinition>();
  readonly #parent: StrategyRegistry | undefined;

  constructor(definitions: Iterable<AnyStrategyDefinition> = [], options: StrategyRegistryOptions = {}) {
    this.#parent = options.parent;
    for (const definition of definitions) {
      this.register(definition);
      if (options.trusted !== false) this.#trusted.add(definition);
    }
  }

  /** Adds a strategy (a third party's); returns its unregister. */
  register(definition: AnyStrategyDefinition): () => void {
    if (typeof definition?.name !== "string" || typeof definition.create !== "function" || typeof definition.optionsSchema?.safeParse !== "function") {
      throw createError("INVALID_ARGUMENT", "register() expects a strategy definition (defineStrategy)", {
        module: "strategies",
        expected: "{ name, description, optionsSchema, create }",
        given: definition,
      });
    }
    if (this.get(definition.name) !== undefined) {
      throw createError("INVALID_ARGUMENT", `a strategy named "${definition.name}" is already registered`, { module: "strategies", given: definition.name });
    }
    this.#definitions.set(definition.name, definition);
    return () => {
      if (this.#definitions.get(definition.name) === definition) this.#definitions.delete(definition.name);
    };
  }

  /** The definition of `name`: registered here, else in the parent. */
  get(name: string): AnyStrategyDefinition | undefined {
    return this.#definitions.get(name) ?? this.#parent?.get(name);
  }

  /** Every name this registry resolves (its own and its parent's), sorted. */
  names(): string[] {
    const names = new Set(this.#parent?.names());
    for (const name of this.#definitions.keys()) names.add(name);
    return [...names].sort();
  }

  /** A strategy from one config entry; `path` is where the entry sits in the config, for errors. */
  /**
   * `services` reach every strategy's `create` as extra deps (e.g. `hybrid`: the stores a hybrid
   * context module reads), also its children's.
   */
  create(spec: unknown, path = "strategies[0]", services: StrategyServices = {}): CompactionStrategy {
    if (typeof spec !== "object" || spec === null || Array.isArray(spec) || typeof (spec as { use?: unknown }).use !== "string") {
      throw createError("INVALID_STRATEGY_OPTIONS", `${path} must name a strategy`, {
        module: "strategies",
        path: `${path}.use`,
        expected: '{ "use": "<strategy name>", …options }',
        given: spec,
        hint: `known strategies: ${this.names().join(", ")}`,
      });
    }
    const { use, ...options } = spec as { use: string; [k: string]: unknown };
    const definition = this.get(use);
    if (!definition) {
      const suggestion = didYouMean(use, this.names());
      throw createError("UNKNOWN_STRATEGY", `"${use}"`, {
        module: "strategies",
        path: `${path}.use`,
        expected: `one of ${this.names().join(", ")}`,
        given: use,
        hint: suggestion ?? `known strategies: ${this.names().join(", ")}`,
      });
    }
    // The one translator words the problems (contracts' parseValid): path `strategies[i].<option>`, did-you-mean.
    const parsedOptions = parseValid(definition.optionsSchema, options, { code: "INVALID_STRATEGY_OPTIONS", path, details: { module: definition.name } });
    const deps: StrategyDeps = { ...services, path, createStrategy: (child, childPath) => this.create(child, childPath, services) };
    const strategy = definition.create(parsedOptions, deps);
    if (this.#trusts(definition)) markTrusted(strategy);
    return strategy;
  }

  /** A pipeline from a `strategies` config array (each entry validated; the first error is thrown). */
  createPipeline(specs: unknown, path = "strategies", services: StrategyServices = {}): CompactionPipeline {
    if (specs === undefined) return new CompactionPipeline([]);
    if (!Array.isArray(specs)) {
      throw createError("INVALID_STRATEGY_OPTIONS", `${path} must be an array of strategy entries`, {
        module: "strategies",
        path,
        expected: '[{ "use": "<strategy name>", …options }]',
        given: specs,
      });
    }
    return new CompactionPipeline(specs.map((spec, i) => this.create(spec, `${path}[${i}]`, services)));
  }

  #trusts(definition: AnyStrategyDefinition): boolean {
    return this.#trusted.has(definition) || (this.#parent !== undefined && this.#parent.#trusts(definition));
  }
}

/** The definitions in an index module's export (an object keyed by name, or an array). */
function definitionsOf(exported: object): AnyStrategyDefinition[] {
  return Object.values(exported).filter((d): d is AnyStrategyDefinition => typeof (d as AnyStrategyDefinition)?.create === "function");
}

/** Every built-in strategy: trimming, summarizing, selecting, and recall. */
export const strategyRegistry = new StrategyRegistry([...definitionsOf(trimmingStrategies), ...definitionsOf(summarizingStrategies), ...definitionsOf(selectorStrategies), recallStrategy]);

/**
 * A registry of its own for one context manager: `definitions` (a user's, not trusted: their
 * output is checked per message) over the built-in catalogue. What is registered on it is
 * unknown to every other registry.
 */
export function createStrategyRegistry(definitions: Iterable<AnyStrategyDefinition> = []): StrategyRegistry {
  return new StrategyRegistry(definitions, { parent: strategyRegistry, trusted: false });
}

/** A built-in strategy from one config entry (`{ "use": "sliding-window", "maxMessages": 40 }`). */
export function createStrategy(spec: unknown, path?: string): CompactionStrategy {
  return strategyRegistry.create(spec, path);
}

/** A pipeline of built-in strategies from a `strategies` config array. */
export function createPipeline(specs: unknown, path?: string, services?: StrategyServices): CompactionPipeline {
  return strategyRegistry.createPipeline(specs, path, services);
}
