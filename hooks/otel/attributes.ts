/**
 * The attribute names this module writes, in one table.
 *
 * `gen_ai.*` and `error.type` are the OpenTelemetry semantic conventions' own names (GenAI, moved
 * from @opentelemetry/semantic-conventions' incubating entry to open-telemetry/semantic-conventions-genai):
 * copied here, as the OpenTelemetry JS docs advise for incubating names, and checked against the
 * published package in test/semantic-conventions.test.ts. The conventions have no names for a
 * context window's decisions (compaction, includes, token calibration, storage health): those are
 * `amplifier.*`.
 */
export const GEN_AI = {
  OPERATION_NAME: "gen_ai.operation.name",
  PROVIDER_NAME: "gen_ai.provider.name",
  CONVERSATION_ID: "gen_ai.conversation.id",
  AGENT_NAME: "gen_ai.agent.name",
  REQUEST_MODEL: "gen_ai.request.model",
  REQUEST_MAX_TOKENS: "gen_ai.request.max_tokens",
  REQUEST_STREAM: "gen_ai.request.stream",
  RESPONSE_MODEL: "gen_ai.response.model",
  RESPONSE_FINISH_REASONS: "gen_ai.response.finish_reasons",
  USAGE_INPUT_TOKENS: "gen_ai.usage.input_tokens",
  USAGE_OUTPUT_TOKENS: "gen_ai.usage.output_tokens",
  USAGE_CACHE_READ_INPUT_TOKENS: "gen_ai.usage.cache_read.input_tokens",
  USAGE_CACHE_CREATION_INPUT_TOKENS: "gen_ai.usage.cache_creation.input_tokens",
  TOOL_NAME: "gen_ai.tool.name",
  TOOL_CALL_ID: "gen_ai.tool.call.id",
  TOOL_TYPE: "gen_ai.tool.type",
  TOOL_CALL_ARGUMENTS: "gen_ai.tool.call.arguments",
  TOOL_CALL_RESULT: "gen_ai.tool.call.result",
  INPUT_MESSAGES: "gen_ai.input.messages",
  OUTPUT_MESSAGES: "gen_ai.output.messages",
} as const;

/** `gen_ai.operation.name` values used here (the conventions' well-known values). */
export const GEN_AI_OPERATION = {
  CHAT: "chat",
  INVOKE_AGENT: "invoke_agent",
  EXECUTE_TOOL: "execute_tool",
} as const;

/** The stable general attribute for a failed operation's kind. */
export const ERROR_TYPE = "error.type";

/**
 * The general (non-GenAI) `session.id`, set beside `gen_ai.conversation.id` with the same value:
 * Langfuse groups traces into sessions by it, and OpenInference (Phoenix) reads either.
 */
export const SESSION_ID = "session.id";

/**
 * `amplifier.*`: what the conventions have no name for.
 *
 * | attribute | on | from |
 * |---|---|---|
 * | `amplifier.provider.api` | chat span | the API the provider module called (`openai-chat`, `openai-responses`, `anthropic`) |
 * | `amplifier.request.messages`, `amplifier.request.tools` | chat span | how many messages / tool definitions the window sent |
 * | `amplifier.request.tokens` | chat span | the window's counted size, when the emitter knows it |
 * | `amplifier.error.retryable` | chat span | provider:error's `retryable` |
 * | `amplifier.context.*` | compaction span, fit span | context:pre_compact / post_compact; a fit report (fit-span.ts) |
 * | `amplifier.include.*`, `amplifier.calibration.*`, `amplifier.storage.*`, `amplifier.strategy.*`, `amplifier.summary.*`, `amplifier.orphan.*`, `amplifier.usage_invalid.*` | span events | the context:* event's fields |
 * | `amplifier.usage.kind`, `amplifier.usage.{conversation,compaction,cache_creation}.cost_usd`, `amplifier.usage.cost_usd` | chat span | context:spend of the bill: whose call it was (conversation / summarizer) and its cost by part, at list prices |
 * | `amplifier.session.usage.{conversation,compaction}.{input_tokens,output_tokens,cost_usd}`, `amplifier.session.usage.cache_creation.{input_tokens,cost_usd}`, `amplifier.session.usage.compaction.{summarizer_calls,provider_compactions}`, `amplifier.session.usage.cost_usd`, `amplifier.session.usage.compaction.cost_share` | turn span, session span | the session's spend so far (context:spend's `session`), the last value when the span ends |
 * | `amplifier.context.compaction.*` | compaction span | the cost policy's decision (post_compact's `decision`): policy, compact, forced, horizon_turns, window_tokens, target_tokens, growth_per_turn, now_cost_usd, defer_cost_usd, reason |
 * | `amplifier.turn.status` | turn span | execution:end / orchestrator:complete's status when failed or cancelled |
 * | `amplifier.span.abandoned` | any span | the span was ended without its closing event (bound reached, teardown) |
 */
export const AMPLIFIER = {
  PROVIDER_API: "amplifier.provider.api",
  REQUEST_MESSAGES: "amplifier.request.messages",
  REQUEST_TOOLS: "amplifier.request.tools",
  REQUEST_TOKENS: "amplifier.request.tokens",
  ERROR_RETRYABLE: "amplifier.error.retryable",
  SPAN_ABANDONED: "amplifier.span.abandoned",
  TURN_STATUS: "amplifier.turn.status",
  // The window's decision (context:pre_compact, then context:post_compact).
  CONTEXT_BUDGET: "amplifier.context.budget",
  CONTEXT_MESSAGES_BEFORE: "amplifier.context.messages_before",
  CONTEXT_TOKENS_BEFORE: "amplifier.context.tokens_before",
  CONTEXT_MESSAGES_AFTER: "amplifier.context.messages_after",
  CONTEXT_TOKENS_AFTER: "amplifier.context.tokens_after",
  CONTEXT_REMOVED: "amplifier.context.removed",
  CONTEXT_TRUNCATED: "amplifier.context.truncated",
  CONTEXT_SUMMARIZED: "amplifier.context.summarized",
  CONTEXT_STRATEGIES: "amplifier.context.strategies",
  CONTEXT_DURATION_MS: "amplifier.context.duration_ms",
  // The standalone fitter's report (recordFitSpan) adds:
  CONTEXT_TOKENS_BEFORE_EXACT: "amplifier.context.tokens_before_exact",
  CONTEXT_KEPT: "amplifier.context.kept",
  CONTEXT_CREATED: "amplifier.context.created",
  CONTEXT_COMPACTED: "amplifier.context.compacted",
  CONTEXT_CUT_REASON: "amplifier.context.cut_reason",
  CONTEXT_LADDER: "amplifier.context.ladder",
  CONTEXT_FORMAT: "amplifier.context.format",
  CONTEXT_TOOL_TOKENS: "amplifier.context.tool_tokens",
  CONTEXT_REPAIRED_SYNTHETIC_RESULTS: "amplifier.context.repaired.synthetic_results",
  CONTEXT_REPAIRED_ORPHANS_DROPPED: "amplifier.context.repaired.orphans_dropped",
  CONTEXT_REPAIRED_PLACEHOLDER: "amplifier.context.repaired.placeholder",
  // The cost policy's decision (post_compact's `decision`).
  COMPACTION_POLICY: "amplifier.context.compaction.policy",
  COMPACTION_COMPACT: "amplifier.context.compaction.compact",
  COMPACTION_FORCED: "amplifier.context.compaction.forced",
  COMPACTION_HORIZON_TURNS: "amplifier.context.compaction.horizon_turns",
  COMPACTION_WINDOW_TOKENS: "amplifier.context.compaction.window_tokens",
  COMPACTION_TARGET_TOKENS: "amplifier.context.compaction.target_tokens",
  COMPACTION_GROWTH_PER_TURN: "amplifier.context.compaction.growth_per_turn",
  COMPACTION_NOW_COST_USD: "amplifier.context.compaction.now_cost_usd",
  COMPACTION_DEFER_COST_USD: "amplifier.context.compaction.defer_cost_usd",
  COMPACTION_REASON: "amplifier.context.compaction.reason",
  // One bill (context:spend), on its chat span.
  USAGE_KIND: "amplifier.usage.kind",
  USAGE_CONVERSATION_COST_USD: "amplifier.usage.conversation.cost_usd",
  USAGE_COMPACTION_COST_USD: "amplifier.usage.compaction.cost_usd",
  USAGE_CACHE_CREATION_COST_USD: "amplifier.usage.cache_creation.cost_usd",
  USAGE_COST_USD: "amplifier.usage.cost_usd",
  // The session's spend so far (context:spend's session), on the turn and session spans.
  SESSION_CONVERSATION_INPUT_TOKENS: "amplifier.session.usage.conversation.input_tokens",
  SESSION_CONVERSATION_OUTPUT_TOKENS: "amplifier.session.usage.conversation.output_tokens",
  SESSION_CONVERSATION_COST_USD: "amplifier.session.usage.conversation.cost_usd",
  SESSION_COMPACTION_INPUT_TOKENS: "amplifier.session.usage.compaction.input_tokens",
  SESSION_COMPACTION_OUTPUT_TOKENS: "amplifier.session.usage.compaction.output_tokens",
  SESSION_COMPACTION_COST_USD: "amplifier.session.usage.compaction.cost_usd",
  SESSION_COMPACTION_SUMMARIZER_CALLS: "amplifier.session.usage.compaction.summarizer_calls",
  SESSION_COMPACTION_PROVIDER_COMPACTIONS: "amplifier.session.usage.compaction.provider_compactions",
  SESSION_COMPACTION_COST_SHARE: "amplifier.session.usage.compaction.cost_share",
  SESSION_CACHE_CREATION_INPUT_TOKENS: "amplifier.session.usage.cache_creation.input_tokens",
  SESSION_CACHE_CREATION_COST_USD: "amplifier.session.usage.cache_creation.cost_usd",
  SESSION_COST_USD: "amplifier.session.usage.cost_usd",
} as const;

/** Span names that are not `{operation} {target}` GenAI spans. */
export const SPAN = {
  SESSION: "amplifier.session",
  COMPACT: "amplifier.context.compact",
  /** A fit of the standalone window fitter (recordFitSpan). */
  FIT: "amplifier.context.fit",
} as const;

/** What `gen_ai.provider.name` says for the APIs the provider modules call; any other name is passed as given. */
export const PROVIDER_NAMES: Readonly<Record<string, string>> = Object.freeze({
  "openai-chat": "openai",
  "openai-responses": "openai",
  openai: "openai",
  anthropic: "anthropic",
});
