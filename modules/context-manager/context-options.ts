import { z } from "zod";
import { AGENT_ID_PATTERN, DEFAULT_AGENT_ID } from "@amplifier-ts/contracts";
import { summarizerConfigSchema } from "@amplifier-ts/summarizers";

/**
 * config `spill` (spilled-history.ts): a tool result or user message over `share` of the budget is
 * written once to the session's blob store and the window carries an excerpt of `excerptTokens`
 * (head, tail, lines matching the prompt and the tool call) with its handle; `false` turns it off.
 */
export const spillOptionsSchema = z
  .union([
    z.literal(false),
    z.strictObject({
      share: z.number().gt(0).lte(1).default(0.25).meta({ description: "A tool result or user message larger than this share of the request's budget (in tokens) is spilled. Default 0.25." }),
      excerptTokens: z
        .number()
        .int()
        .min(64)
        .max(1_000_000)
        .default(2_000)
        .meta({ description: "The size of the excerpt the window carries instead, in tokens (header included); never more than half of share × budget. Default 2000." }),
      refocus: z
        .boolean()
        .default(false)
        .meta({ description: "true: when a new user prompt changes the search terms, the spilled messages still in the window are excerpted again for it (the model sees the lines the new question is about; the prompt cache loses the prefix from the first such message on). Default false: an excerpt is made once, for the prompt and tool call it answered, and stays byte-identical (cache friendly); the model reads the rest with read_stored_result." }),
      roles: z
        .array(z.enum(["tool", "user"]))
        .min(1)
        .default(["tool", "user"])
        .meta({ description: "Which messages may be spilled: tool results (role tool, and user messages carrying tool_result blocks count as user) and user messages. Default both." }),
    }),
  ])
  .default({ share: 0.25, excerptTokens: 2_000, refocus: false, roles: ["tool", "user"] })
  .meta({ description: "Spilling of single inputs too large for the window: the whole message stays in the history and goes to the session's blob store under a stable handle; the window carries a query-aware excerpt and the handle, which the read_stored_result tool reads. false: off (the window cuts such a result to fit instead)." });
export type SpillOptions = Exclude<z.output<typeof spillOptionsSchema>, false>;

/**
 * config `compactionPolicy` (compaction-cost.ts): "threshold" (default) cuts when the window passes
 * compactThreshold × budget; "cost" cuts when compacting now costs less over the next
 * `horizonTurns` requests than carrying the larger window, at the model's list prices.
 */
export const compactionPolicySchema = z
  .union([
    z.enum(["threshold", "cost"]),
    z.strictObject({
      policy: z.enum(["threshold", "cost"]).meta({ description: "threshold: compactThreshold decides. cost: the expected cost over the next horizonTurns requests decides." }),
      horizonTurns: z.number().int().min(1).max(1_000).default(10).meta({ description: "Requests looked ahead by the cost policy, this one included (1-1000). Default 10." }),
    }),
  ])
  .default("threshold")
  .meta({
    description:
      'When the window is cut. "threshold" (default): when it passes compactThreshold x the budget, down to compactTarget. "cost" (or { policy: "cost", horizonTurns }): at each request past compactTarget, compacting now (the cache write of the new prefix, the summarizer call if the compaction makes one) is weighed against carrying the larger window (its cache reads, and the forced compaction when it would pass the budget) over the next horizonTurns requests (default 10), at the model\'s list prices; the cheaper plan wins. A model without prices in the registry falls back to the threshold. Same events (context:pre_compact / post_compact, with the decision); explainLastWindow().compactionDecision says why.',
  });
export type CompactionPolicyInput = z.input<typeof compactionPolicySchema>;

/** The policy in one shape: `{ policy, horizonTurns }`. */
export function normalizeCompactionPolicy(value: z.output<typeof compactionPolicySchema>): { policy: "threshold" | "cost"; horizonTurns: number } {
  return typeof value === "string" ? { policy: value, horizonTurns: 10 } : value;
}

/** Options shared by every built-in context module (context-simple, context-persistent). */
export const retentionPolicies = ["permanent", "run", "none"] as const;
export type RetentionPolicy = (typeof retentionPolicies)[number];

/**
 * The source of truth of the context modules' config: context-simple validates with
 * contextOptionsSchema, context-persistent with these options plus its own (persistent-options.ts);
 * each emits its JSON Schema for editors from them (`npm run schemas`), descriptions included.
 */
export const contextOptionsShape = {
  maxTokens: z.number().int().positive().default(100_000).meta({ description: "Budget when neither the caller, the provider nor the model registry gives one." }),
  safetyMargin: z.number().int().min(0).default(1_000).meta({ description: "Tokens kept free below context_window - max_output_tokens." }),
  compactThreshold: z.number().gt(0).lte(1).default(0.9).meta({ description: "Compaction starts when the history passes this share of the budget." }),
  /** … and cuts down to this share, so the cut moves in large, cache-friendly steps. */
  compactTarget: z.number().gt(0).lte(1).default(0.7).meta({ description: "Compaction cuts down to this share of the budget (must be <= compactThreshold)." }),
  /** compaction-cost.ts: when the window is cut — the threshold (default) or the expected cost over the next turns. */
  compactionPolicy: compactionPolicySchema,
  model: z.string().min(1).default("gpt-4o").meta({ description: "Model used to count tokens when the provider does not name one." }),
  /** HistoryStore contract v2 (contracts/HISTORY-STORES.md): a history is keyed by (agentId, sessionId). */
  agentId: z
    .string()
    .regex(AGENT_ID_PATTERN)
    .default(DEFAULT_AGENT_ID)
    .meta({ description: "The agent whose history this is: with a store, the session is kept under (agentId, sessionId), so agents sharing a store and a session id never see each other's messages. 1-128 characters of [A-Za-z0-9._-], no leading dot, no '..'. Default \"default\" (the history of stores written before agents)." }),
  retention: z.enum(retentionPolicies).default("permanent").meta({ description: "permanent: kept; run: a run's messages are cleared when it ends; none: never persisted." }),
  /** request-budget.ts: a provider that never answers must not hang the request. */
  providerInfoTimeoutMs: z
    .number()
    .int()
    .positive()
    .max(600_000)
    .default(10_000)
    .meta({ description: "How long getMessagesForRequest waits for provider.getInfo(), in ms, before it fails with PROVIDER_TIMEOUT (default 10000, at most 600000)." }),
  /** See contracts/TOKENS.md. */
  safetyFactor: z.number().min(1).max(3).optional().meta({ description: "Multiplier for counts of models whose tokenizer is not public." }),
  /** Each entry is validated by its strategy's schema when the module is created. */
  strategies: z
    .array(z.looseObject({ use: z.string().min(1).meta({ description: "Strategy name: sliding-window, tool-result-compaction, selective-tool-call, summarization, truncation, token-budget, …" }) }))
    .default([])
    .meta({ description: "Compaction pipeline run before the window assembler, in order (contracts/STRATEGIES.md). Each entry names a strategy and its camelCase options; options are validated by the strategy. Default []: the window assembler's hysteresis cut alone." }),
  /** provider-compaction.ts */
  providerCompaction: z
    .enum(["auto", "on", "off"])
    .default("auto")
    .meta({ description: 'Whether the provider compacts the conversation on its server (Anthropic compact_20260112, OpenAI Responses context_management). "auto" (default): when the provider\'s getInfo() lists the "server-compaction" capability (provider-anthropic / provider-openai with contextManagement configured). "on": always; "off": never. Then windows start at the newest stored compaction block (what the provider already compacted is not sent again) and config strategies are not run; the provider\'s compactions are reported as context:post_compact with source "provider".' }),
  /** spilled-history.ts: a single input too large for the window goes to the blob store; the window carries an excerpt. */
  spill: spillOptionsSchema,
  /** modules/window/window-builder.ts: the thinking policy of the window. */
  thinking: z
    .enum(["drop-older", "keep"])
    .default("drop-older")
    .meta({ description: "Thinking blocks (Anthropic thinking / redacted_thinking, Responses reasoning) of turns before the last one. \"drop-older\" (default): those assistant messages are sent without them — all of a message's or none, never altered — and the window record counts the tokens saved (report.thinkingDropped); the providers need thinking only until its tool turn completes. \"keep\": sent as stored. The last turn's thinking, the turn in progress's included, is always sent byte-identical." }),
  /** modules/summarizers/configured-summarizer.ts */
  summarizer: summarizerConfigSchema.optional().meta({ description: "Summarizer used by the summarising strategies (summarization, summarizing). \"extractive\" (default): offline, no model. \"provider\": a mounted provider's complete(); the object form names the provider (default: the first mounted) and the model (default: the provider's own). With no provider mounted when a summary is needed, the strategy drops the old messages instead and emits context:summary_failed." }),
};

export const contextOptionsSchema = z
  .object(contextOptionsShape)
  .strict()
  .refine((o) => o.compactTarget <= o.compactThreshold, {
    message: "compactTarget must be ≤ compactThreshold",
    path: ["compactTarget"],
  })
  .meta({ title: "ContextSimpleConfig", description: "Config of the built-in context-simple module (in-memory history)." });

export type ContextOptions = z.output<typeof contextOptionsSchema>;
export type ContextOptionsInput = z.input<typeof contextOptionsSchema>;
