// @amplifier-ts/openai-agents: durable, window-fitted sessions for the OpenAI Agents SDK.
export { AmplifierSession } from "./amplifier-session.js";
export type { AmplifierSessionOptions, SessionTool } from "./session-options.js";
export { openAIAgentsErrors, type OpenAIAgentsErrorCode } from "./session-errors.js";
export { ITEM_KEY } from "./stored-items.js";
