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

const CONTEXT_LENGTH = /context[_ ]length|context window|prompt is too long|exceeds? (?:the )?context limit|maximum context length/i;
const RETRYABLE_STATUS = new Set([408, 409]);

/**
 * The PROVIDER error for what an official SDK call threw (see the table above). Both official SDKs
 * (openai, @anthropic-ai/sdk) throw the same shape, read here by its fields, not its classes: an
 * APIError with `status`, `error` (the body: OpenAI's inner `{ message, code, type }`, Anthropic's
 * `{ type: "error", error: { type, message } }`) and `requestID`; no status = no answer (a
 * connection error, or the SDK's timer before the headers: TIMEOUT with `phase: "headers"`). An
 * abort by the caller's signal, and anything that is not an SDK error (an adapter's ADAPTER/*
 * error, an onDelta that threw), are returned as they are: @amplifier-ts/provider-kit types those
 * that happened after an answer came (call-failure.ts).
 */
export function providerErrorFrom(error: unknown, site: ProviderCallSite): unknown {
  if (!(error instanceof Error) || error.name === "AbortError" || error.constructor.name === "APIUserAbortError") return error;
  const e = error as Error & { status?: unknown; error?: unknown; requestID?: unknown; code?: unknown; type?: unknown };
  const isSdkError = "status" in e && "error" in e;
  if (!isSdkError) return error;
  const body = (typeof e.error === "object" && e.error !== null ? e.error : {}) as { message?: unknown; code?: unknown; type?: unknown; error?: { message?: unknown; type?: unknown } };
  const providerMessage = String(body.error?.message ?? body.message ?? e.message);
  const providerType = body.error?.type ?? body.type ?? e.type;
  const providerCode = body.code ?? e.code;
  const status = typeof e.status === "number" ? e.status : undefined;
  // Both SDKs call their own timer's error APIConnectionTimeoutError (that timer stops at the headers).
  // An error event inside a stream has no status: Anthropic's overloaded_error there is its 529.
  const code = status === undefined
    ? error.constructor.name === "APIConnectionTimeoutError" ? "TIMEOUT" : providerType === "overloaded_error" ? "RATE_LIMITED" : "CONNECTION_FAILED"
    : status === 429 || status === 529
      ? "RATE_LIMITED"
      : status === 401 || status === 403
        ? "AUTHENTICATION_FAILED"
        : status === 400 && (providerCode === "context_length_exceeded" || CONTEXT_LENGTH.test(providerMessage))
          ? "CONTEXT_LENGTH_EXCEEDED"
          : "API_ERROR";
  const retryable = code === "RATE_LIMITED" || code === "CONNECTION_FAILED" || code === "TIMEOUT" || (status !== undefined && (status >= 500 || RETRYABLE_STATUS.has(status)));
  return providerErrors.create(code, `${site.provider} ${site.model}: ${status === undefined ? "" : `${status} `}${providerMessage}`, {
    module: site.module,
    provider: site.provider,
    model: site.model,
    ...(status === undefined ? {} : { status }),
    providerMessage,
    ...(typeof providerCode === "string" ? { providerCode } : {}),
    ...(typeof providerType === "string" ? { providerType } : {}),
    ...(typeof e.requestID === "string" ? { requestId: e.requestID } : {}),
    ...(code === "TIMEOUT" ? { phase: "headers" } : {}),
    retryable,
    cause: error,
  });
}
