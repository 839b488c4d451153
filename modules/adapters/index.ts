// @amplifier-ts/adapters: stored messages to each provider API's request shape and back, with
// the API's pairing and ordering rules guaranteed (contracts/ADAPTERS.md).
export { adapterErrors, type AdapterName, type AdapterErrorCode, type AdapterErrorDetails } from "./adapter-errors.js";
export { toOpenAIChat, fromOpenAIChat, type ChatMessage, type ChatTextPart, type ChatImagePart, type ChatToolCall, type OpenAIChatRequest, type OpenAIChatCompletion, type ToRequestOptions } from "./openai-chat.js";
export { toOpenAIResponses, fromOpenAIResponses, type ResponsesItem, type ResponsesInputText, type ResponsesInputImage, type ResponsesOutputText, type OpenAIResponsesRequest, type OpenAIResponse, type OpenAIReasoningMetadata } from "./openai-responses.js";
export { toAnthropic, fromAnthropic, CONVERSATION_START, type AnthropicBlock, type AnthropicMessage, type AnthropicRequest, type AnthropicResponse, type AnthropicTextBlock, type AnthropicImageBlock, type AnthropicToolUseBlock, type AnthropicToolResultBlock, type AnthropicThinkingBlock, type AnthropicRedactedThinkingBlock, type AnthropicImageSource, type ToAnthropicOptions } from "./anthropic.js";
export { toAISDK, fromAISDK, type ModelMessage, type AISDKTextPart, type AISDKImagePart, type AISDKReasoningPart, type AISDKToolCallPart, type AISDKToolResultPart, type AISDKToolResultOutput } from "./ai-sdk.js";
export { toLangChain, fromLangChain, fromLangChainMessage, toLangChainMessage, langChainTypeOf, type LangChainMessageLike, type LangChainMessageFields } from "./langchain.js";
export { toChatTools, toResponsesTools, toAnthropicTools, fromApiTool, type ChatTool, type ResponsesTool, type AnthropicTool } from "./tool-definitions.js";
