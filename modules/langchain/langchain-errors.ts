import { defineErrorCodes } from "@amplifier-ts/contracts";

/**
 * The LangChain drop-in's own error codes (contracts/ERRORS.md). Each carries `details.path` (the
 * option or message at fault), `expected` and `given`, so a caller can act without reading code.
 */
export const langchainErrors = defineErrorCodes("LANGCHAIN", {
  UNSUPPORTED_OPTION: "A trimMessages option this drop-in does not honour",
  NO_MODEL: "The window's budget cannot be told: no model, no budget, and the chat model names no model the registry knows",
});

export type LangChainErrorCode = keyof typeof langchainErrors.codes;
