import { defineErrorCodes, type AmplifierError, type ErrorDetails } from "@amplifier-ts/contracts";

/**
 * The codes of @amplifier-ts/openai-agents (README.md, "Errors"). Bad options are the built-in
 * INVALID_ARGUMENT; what the store says (INVALID_SESSION_ID, STORAGE_WRITE_FAILED,
 * STORAGE_WRITE_UNCERTAIN, BUDGET_TOO_SMALL from the window) passes through with its own code.
 */
export const openAIAgentsErrors = defineErrorCodes("OPENAI_AGENTS", {
  INVALID_ITEM: "An item given to the session is not an AgentInputItem that can be stored as JSON",
  SESSION_CLOSED: "The session has been closed",
});

export type OpenAIAgentsErrorCode = keyof typeof openAIAgentsErrors.codes;

export const MODULE = "openai-agents";

export function sessionError(code: OpenAIAgentsErrorCode, message: string, details: Omit<ErrorDetails, "module"> = {}): AmplifierError {
  return openAIAgentsErrors.create(code, message, { module: MODULE, ...details });
}
