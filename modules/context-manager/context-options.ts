import { z } from "zod";
import { summarizerConfigSchema } from "@amplifier-ts/summarizers";

/**
 * Options shared by every built-in context module (context-simple, context-persistent).
 * The JSON Schema twin lives in contracts/schemas/modules/context-*.config.schema.json; a test
 * checks they accept and reject the same documents.
 */
export const retentionPolicies = ["permanent", "run", "none"] as const;
export type RetentionPolicy = (typeof retentionPolicies)[number];

export const contextOptionsShape = {
  /** Budget when neither the caller nor the provider nor the model registry gives one. */
  maxTokens: z.number().int().positive().default(100_000),
  /** Tokens kept free below context_window − max_output_tokens. */
  safetyMargin: z.number().int().min(0).default(1_000),
  /** Compaction starts when the history passes this share of the budget. */
  compactThreshold: z.number().gt(0).lte(1).default(0.9),
  /** … and cuts down to this share, so the cut moves in large, cache-friendly steps. */
  compactTarget: z.number().gt(0).lte(1).default(0.7),
  /** Model used to count tokens when the provider does not name one. */
  model: z.string().min(1).default("gpt-4o"),
  /** permanent (default) | run (a run's messages cleared when it ends) | none (never persisted). */
  retention: z.enum(retentionPolicies).default("permanent"),
  /** Multiplier applied to counts for models whose tokenizer is not public (see contracts/TOKENS.md). */
  safetyFactor: z.number().min(1).max(3).optional(),
  /**
   * Compaction pipeline run before the window assembler (contracts/STRATEGIES.md): entries
   * `{ use: "<strategy>", …options }`, each validated by its strategy's schema when the module is
   * created. Default [] : the window assembler's hysteresis cut alone.
   */
  strategies: z.array(z.looseObject({ use: z.string().min(1) })).default([]),
  /**
   * Summarizer of the summarising strategies (modules/summarizers/configured-summarizer.ts):
   * "extractive" (default, offline) or "provider" / { type: "provider", provider?, model? }.
   */
  summarizer: summarizerConfigSchema.optional(),
};

export const contextOptionsSchema = z
  .object(contextOptionsShape)
  .strict()
  .refine((o) => o.compactTarget <= o.compactThreshold, {
    message: "compactTarget must be ≤ compactThreshold",
    path: ["compactTarget"],
  });

export type ContextOptions = z.output<typeof contextOptionsSchema>;
export type ContextOptionsInput = z.input<typeof contextOptionsSchema>;
