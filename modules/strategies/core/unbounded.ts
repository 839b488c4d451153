/**
 * `unbounded` (core contexts seed: UnboundedContext): pass-through — every message, system
 * messages included, in stored order. The default for scripts, tests and short sessions; the
 * context manager still enforces the budget after it, so "unbounded" never means "over budget".
 */
import { z } from "zod";
import type { CompactionStrategy } from "../../../contracts/compaction-strategy.js";
import type { Message } from "../../../contracts/generated/message.js";
import { defineStrategy } from "../strategy-definition.js";

export const unboundedOptions = z.object({}).strict();

export class UnboundedContext implements CompactionStrategy {
  readonly name = "unbounded";

  compact(messages: readonly Message[]): Message[] {
    return [...messages];
  }
}

export const unboundedStrategy = defineStrategy({
  name: "unbounded",
  description: "pass-through: every message, system kept (the context manager still enforces the budget)",
  optionsSchema: unboundedOptions,
  create: () => new UnboundedContext(),
});
