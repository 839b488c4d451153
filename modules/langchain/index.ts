// @amplifier-ts/langchain: the window engine as a LangChain.js v1 drop-in (README.md).
export { fitWindowMiddleware, type FitWindowMiddlewareOptions } from "./fit-window-middleware.js";
export { trimMessages, type TrimMessagesOptions, type MessageTypeOrClass } from "./trim-messages.js";
export { langchainErrors, type LangChainErrorCode } from "./langchain-errors.js";
