import { providerErrors, type ProviderCallSite } from "@amplifier-ts/contracts";

const CONTEXT_LENGTH = /context[_ ]length|context window|prompt is too long|exceeds? (?:the )?context limit|maximum context length/i;
const RETRYABLE_STATUS = new Set([408, 409]);

/**
 * The PROVIDER error for what an official SDK call threw (the table of providerErrors in
 * contracts/provider-errors.ts). Both official SDKs (openai, @anthropic-ai/sdk) throw the same shape, read here by its fields, not its classes: an
 * APIError with `status`, `error` (the body: OpenAI's inner `{ message, code, type }`, Anthropic's
 * `{ type: "error", error: { type, message } }`) and `requestID`; no status = no answer (a
 * connection error, or the SDK's timer before the headers: TIMEOUT with `phase: "headers"`). An
 * abort by the caller's signal, and anything that is not an SDK error (an adapter's ADAPTER/*
 * error, an onDelta that threw), are returned as they are: call-failure.ts types those that happened
 * after an answer came.
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
