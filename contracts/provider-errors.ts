import { defineErrorCodes } from "./errors.js";

/**
 * The codes every provider module throws alike (contracts/ERRORS.md), so an orchestrator handles
 * a rate limit the same way whichever API is behind it. Each carries the provider's own message
 * in the error's message and `details`: `provider` (the API: openai-chat, openai-responses,
 * anthropic), `model`, `status` (HTTP), `providerMessage`, `providerCode` / `providerType` (the
 * API's error code and type), `requestId`, `retryable`, and the SDK's error as `cause`.
 *
 * | the API answered                                            | code                    | retryable |
 * |-------------------------------------------------------------|-------------------------|-----------|
 * | 429, or Anthropic 529 overloaded (or its overloaded_error event mid-stream) | RATE_LIMITED | yes |
 * | 400 saying the prompt is longer than the model's window     | CONTEXT_LENGTH_EXCEEDED | no        |
 * | 401 / 403                                                   | AUTHENTICATION_FAILED   | no        |
 * | any other error status                                      | API_ERROR               | 5xx, 408, 409 |
 * | nothing: connection refused or reset before the headers, or another error event mid-stream | CONNECTION_FAILED | yes |
 * | 2xx, then the body or stream broke off (reset, cut short)    | CONNECTION_FAILED       | yes       |
 * | no headers, body or stream end within timeoutMs, or a stream silent for its idle timeout | TIMEOUT | yes |
 * | 2xx with a body that is not one assistant answer            | INVALID_RESPONSE        | no        |
 * A provider that has no API key (config or environment) fails at mount with MISSING_API_KEY.
 */
export const providerErrors = defineErrorCodes("PROVIDER", {
  RATE_LIMITED: "The provider's API refused the call: rate limit or overload",
  CONTEXT_LENGTH_EXCEEDED: "The provider's API refused the request: longer than the model's context window",
  AUTHENTICATION_FAILED: "The provider's API refused the credentials",
  API_ERROR: "The provider's API answered with an error",
  CONNECTION_FAILED: "The provider's API could not be reached, or the connection broke before the answer was complete",
  TIMEOUT: "The provider's API did not complete the answer in time (headers, body or stream)",
  INVALID_RESPONSE: "The provider's API answered with something that is not one assistant message",
  MISSING_API_KEY: "No API key for the provider: none in its config, none in the environment",
});

export type ProviderErrorCode = keyof typeof providerErrors.codes;

/** Where a provider call failed: the module, the API and the model. */
export interface ProviderCallSite {
  module: string;
  provider: string;
  model: string;
}
