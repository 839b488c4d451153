/**
 * `unbounded`: pass-through — every message, system
 * messages included, in stored order. The default for scripts, tests and short sessions; the
 * context manager still enforces the budget after it, so "unbounded" never means "over budget".
 */
import { z } from "zod";
import type { CompactionStrategy } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { IncrementalStrategy, LogStep, MessageSource } from "../message-log.js";
import { defineStrategy } from "@amplifier-ts/contracts";

export const unboundedOptions = z.object({}).strict();

export class UnboundedContext implements CompactionStrategy, IncrementalStrategy {
  readonly name = "unbounded";

  compact(messages: readonly Message[]): Message[] {
    return [...messages];
  }

  /** Its input, as is: O(1). */
  compactLog(input: MessageSource): LogStep {
    return { output: input, changed: false };
  }

  resetLog(): void {}
}

export const unboundedStrategy = defineStrategy({
  name: "unbounded",
  description: "pass-through: every message, system kept (the context manager still enforces the budget)",
  optionsSchema: unboundedOptions,
  create: () => new UnboundedContext(),
});
