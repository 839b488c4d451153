// Every contract of amplifier-ts: the types generated from the JSON Schemas, the module
// interfaces, the event map, and the zod validators. The conformance suites are not here: they
// import vitest and are published separately as "amplifier-ts/testing".
export type * from "./generated/index.js";
// All validators but the two names core/hooks exports at the package root for the hook bus's own
// check (schema + bus rules); the schema-only hookResultSchema / validateHookResult are imported
// from contracts/validators. Re-exporting both here would make the root's `export *` ambiguous.
export {
  roleSchema,
  textBlockSchema,
  imageBlockSchema,
  imageUrlBlockSchema,
  toolUseBlockSchema,
  toolResultBlockSchema,
  thinkingBlockSchema,
  redactedThinkingBlockSchema,
  contentBlockSchema,
  toolCallSchema,
  summaryInfoSchema,
  messageMetadataSchema,
  messageSchema,
  validateMessage,
  validateMessages,
  isValidMessage,
  hookActionSchema,
  isValidHookResult,
  providerDefaultsSchema,
  providerInfoSchema,
  validateProviderInfo,
  isValidProviderInfo,
  amplifierConfigSchema,
  moduleRefSchema,
  namedModuleRefSchema,
  sessionModuleRefSchema,
  formatIssues,
  formatIssue,
  formatPath,
  issuesError,
  parseValid,
  assertValid,
  didYouMean,
  editDistance,
  suggestKey,
  isDateTime,
  CONTRACT_VALIDATORS,
  type ValidationIssue,
  type DocumentIssue,
  type Wording,
  type ValidationErrorOptions,
  type ContractSchemaName,
} from "./validators/index.js";
export * from "./context-manager.js";
export * from "./coordinator.js";
export * from "./events.js";
export type { CompactionCostDecision, CompactionPlanCost, SessionSpendSummary, SpendPart, SpendReport } from "./compaction-cost.js";
export * from "./event-kinds.js";
export * from "./hook-bus.js";
export * from "./hook-result.js";
export type * from "./history-store.js";
export { hasSessionAttachments, ATTACHMENT_NAME_PATTERN, MAX_ATTACHMENT_BYTES } from "./history-store.js";
export { DEFAULT_AGENT_ID, AGENT_ID_PATTERN } from "./agent-scope.js";
export { decodeWindowSegment, encodeWindowSegment, windowSegmentName, WINDOW_RECORD_VERSION, WINDOW_SEGMENT_SIZE, type ToolRecord, type WindowRecord, type WindowRun, type WindowRunDecision } from "./window-record.js";
export type * from "./module.js";
export type * from "./provider.js";
export { SERVER_COMPACTION_CAPABILITY } from "./provider.js";
export { providerErrors, type ProviderErrorCode, type ProviderCallSite } from "./provider-errors.js";
export type * from "./tokenizer.js";
export type * from "./tool.js";
export { type CompactionContext, type CompactionStrategy, type ExplainDecision, type ExplainRecorder, type Summarizer } from "./compaction-strategy.js";
export {
  AmplifierError,
  createError,
  defineErrorCodes,
  describeValue,
  isAmplifierError,
  registeredErrorCodes,
  type AnyErrorCode,
  type ErrorCode,
  type ErrorDetails,
  type ModuleErrorCode,
  type ModuleErrors,
} from "./errors.js";
export { EMBEDDER_CAPABILITY, type Embedder, type HistorySearch, type MetadataFilter, type MetadataValue, type SearchFeedback, type SearchFilter, type SearchHit, type SearchOptions, type VectorDocument, type VectorHit, type VectorQueryOptions, type VectorStore, type VectorWriteOptions } from "./search.js";
export * from "./messages/index.js";
export * from "./memory/index.js";
export * from "./stores/index.js";
export { SPILLED_RESULTS_CAPABILITY, type SpilledResults } from "./spilled-results.js";
export { defineStrategy, STRATEGIES_CAPABILITY, type AnyStrategyDefinition, type StrategyDefinition, type StrategyDeps, type StrategySpec } from "./strategy-definition.js";
