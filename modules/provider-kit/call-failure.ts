import { isAmplifierError, providerErrors, type AmplifierError, type ProviderCallSite } from "@amplifier-ts/contracts";
import { providerErrorFrom } from "./provider-error-from.js";
import type { CallWatch } from "./call-watch.js";

/** What runProviderCall knows about a failed call besides what was thrown. */
export interface FailedCall {
  site: ProviderCallSite;
  watch: CallWatch;
  /** The call streamed (the API was asked for an event stream). */
  streaming: boolean;
  /** The stream's closing event (finish_reason, response.completed, message_stop) was seen. */
  streamEnded: boolean;
  /** The caller's signal aborted the call, or the caller's onDelta threw: theirs, passed on as is. */
  callerCaused: boolean;
  timeoutMs: number;
}

/**
 * The error one failed complete() call ends with — every failure of the API is a PROVIDER/* error
 * with `provider`, `model`, `status` (when an answer came), `retryable` and the original as `cause`:
 *
 * | what happened                                                    | code              | retryable |
 * |------------------------------------------------------------------|-------------------|-----------|
 * | the caller aborted, or its onDelta threw                         | (the caller's own error) |    |
 * | the watch's clock ran out, or the SDK's (before the headers)      | TIMEOUT (`phase`, `elapsedMs`, `limitMs`) | yes |
 * | the SDK's API error (a status) or connection error (none)        | providerErrorFrom's table | its table |
 * | nothing came back, and the error is not the SDK's (the adapter refused the window) | (as thrown) | |
 * | 2xx, then the body broke off (reset, terminated)                  | CONNECTION_FAILED | yes       |
 * | 2xx event stream that ended before its closing event             | CONNECTION_FAILED | yes       |
 * | 2xx with anything else wrong: not JSON, not the API's shape, a stream asked for and JSON sent, an adapter's `from` refusal | INVALID_RESPONSE | no |
 *
 * A malformed 2xx is not retryable: the same request usually gets the same broken proxy or server.
 */
export function callFailure(thrown: unknown, call: FailedCall): unknown {
  const { site, watch } = call;
  if (call.callerCaused) return thrown;
  const where = { module: site.module, provider: site.provider, model: site.model };
  const timedOut = watch.timedOut;
  if (timedOut !== undefined) return timeoutError({ ...where, ...(watch.answer ? { status: watch.answer.status } : {}) }, timedOut.phase, timedOut.elapsedMs, timedOut.limitMs, thrown);
  const mapped = providerErrorFrom(thrown, site);
  if (isAmplifierError(mapped) && mapped.code === "PROVIDER/TIMEOUT") return timeoutError(where, "headers", watch.elapsedMs, call.timeoutMs, thrown);
  if (mapped !== thrown) return mapped;
  const answer = watch.answer;
  if (answer === undefined || answer.status < 200 || answer.status > 299) return thrown;
  const seen = { ...where, status: answer.status, contentType: answer.contentType, ...(answer.requestId ? { requestId: answer.requestId } : {}) };
  const reason = thrown instanceof Error ? thrown.message : String(thrown);
  if (watch.bodyFailure !== undefined) {
    return providerErrors.create("CONNECTION_FAILED", `${site.provider} ${site.model}: the answer broke off after ${answer.status}: ${reason}`, { ...seen, phase: answer.eventStream ? "stream" : "body", retryable: true, cause: thrown });
  }
  if (call.streaming && answer.eventStream && !call.streamEnded) {
    return providerErrors.create("CONNECTION_FAILED", `${site.provider} ${site.model}: the stream ended before the answer was complete (${reason})`, { ...seen, phase: "stream", retryable: true, cause: thrown });
  }
  const expected = call.streaming ? `an event stream of the ${site.provider} API ending in its closing event` : `one answer of the ${site.provider} API as a JSON object`;
  return providerErrors.create("INVALID_RESPONSE", `${site.provider} ${site.model}: ${answer.status} with an answer that cannot be read (${reason})`, { ...seen, expected, given: watch.bodyStart, retryable: false, cause: thrown });
}

/** PROVIDER/TIMEOUT; `where` carries the answer's `status` when the headers had come. */
export function timeoutError(where: ProviderCallSite & { status?: number }, phase: string, elapsedMs: number, limitMs: number, cause: unknown): AmplifierError {
  const limit = phase === "stream-idle" ? `streamIdleTimeoutMs ${limitMs}` : `timeoutMs ${limitMs}`;
  return providerErrors.create("TIMEOUT", `${where.provider} ${where.model}: no ${phase === "stream-idle" ? "stream event" : `end of the ${phase}`} after ${elapsedMs} ms (${limit})`, {
    ...where,
    phase,
    elapsedMs,
    limitMs,
    retryable: true,
    cause,
  });
}
