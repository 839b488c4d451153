import { isAmplifierError } from "@amplifier-ts/contracts";
import { describe, expect, it } from "vitest";
import { providerErrorFrom } from "../index.js";

const site = { module: "provider-openai", provider: "openai-chat", model: "gpt-test" };

/** An error shaped like both official SDKs' APIError: read by its fields, not its class. */
function sdkError(status: number | undefined, body: unknown, message = "failed"): Error {
  return Object.assign(new Error(message), { status, error: body, requestID: "req_1" });
}

describe("providerErrorFrom", () => {
  it.each([
    [429, { message: "slow down" }, "RATE_LIMITED", true],
    [529, { type: "error", error: { type: "overloaded_error", message: "overloaded" } }, "RATE_LIMITED", true],
    [401, { message: "bad key" }, "AUTHENTICATION_FAILED", false],
    [400, { message: "maximum context length is 8192 tokens", code: "context_length_exceeded" }, "CONTEXT_LENGTH_EXCEEDED", false],
    [500, { message: "boom" }, "API_ERROR", true],
    [400, { message: "bad request" }, "API_ERROR", false],
    [undefined, undefined, "CONNECTION_FAILED", true],
  ])("status %s → PROVIDER/%s", (status, body, code, retryable) => {
    const mapped = providerErrorFrom(sdkError(status as number | undefined, body), site);
    expect(isAmplifierError(mapped, `PROVIDER/${code}` as never)).toBe(true);
    expect((mapped as { details: { retryable: boolean; requestId?: string } }).details).toMatchObject({ retryable, requestId: "req_1", provider: "openai-chat", model: "gpt-test" });
  });

  it("returns an abort and an error that is not an SDK error as they are", () => {
    const abort = Object.assign(new Error("aborted"), { name: "AbortError" });
    const other = new Error("onDelta threw");
    expect(providerErrorFrom(abort, site)).toBe(abort);
    expect(providerErrorFrom(other, site)).toBe(other);
    expect(providerErrorFrom("not an error", site)).toBe("not an error");
  });
});
