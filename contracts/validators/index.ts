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
} from "./message.js";
export { hookActionSchema, hookResultSchema, validateHookResult, isValidHookResult } from "./hook-result.js";
export { providerDefaultsSchema, providerInfoSchema, validateProviderInfo, isValidProviderInfo } from "./provider-info.js";
export { amplifierConfigSchema, moduleRefSchema, namedModuleRefSchema, sessionModuleRefSchema } from "./amplifier-config.js";
export { formatIssues, formatPath, type DocumentIssue, type ValidationIssue, type Wording } from "./format-issues.js";
export { assertValid, formatIssue, issuesError, parseValid, type ValidationErrorOptions } from "./validation-error.js";
export { didYouMean, editDistance, suggestKey } from "./suggest-key.js";
export { isDateTime } from "./date-time.js";
export { findNonJsonValue, MAX_JSON_DEPTH } from "./json-value.js";
export { CONTRACT_VALIDATORS, type ContractSchemaName } from "./registry.js";
