export type { Tokenizer } from "@amplifier-ts/contracts";
export { countTokens, type CountTokensOptions } from "./count-tokens.js";
export { getTokenCounter, DEFAULT_MODEL, type TokenCounter, type TokenCounterOptions } from "./token-counter.js";
export { exportTokenCounts, forgetTokenCounts, importTokenCounts, type CarriedTokenCounts } from "./carried-counts.js";
export {
  getModelInfo,
  listModels,
  registerModel,
  normalizeModelName,
  type ModelInfo,
  type ModelRegistration,
  type ModelFamily,
  type ImageTilePrice,
  type ModelPrices,
} from "./model-registry.js";
export { FAMILY_SAFETY_FACTORS } from "./known-models.js";
export { priceUsage, type UsagePrice } from "./usage-price.js";
export { getTiktokenTokenizer, TIKTOKEN_ENCODINGS, type TiktokenEncodingName } from "./tiktoken-tokenizer.js";
export { chatFormatFor, type ChatFormat, type ToolDefinitionFormat } from "./chat-format.js";
export {
  imageTokens,
  openAiTileTokens,
  anthropicPixelTokens,
  geminiTileTokens,
  imagePricingFor,
  DEFAULT_TILE_PRICE,
  type ImagePricing,
  type ImageRule,
  type ImageDetail,
} from "./image-tokens.js";
export { REDACTED_THINKING_CHARS_PER_TOKEN } from "./content-rules.js";
export { TOKENS_CAPABILITY, tokensCapability, type TokensCapability } from "./tokens-capability.js";
