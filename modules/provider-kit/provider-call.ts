import type { AmplifierEvents, BilledUsage, ChatRequest, ChatResponse, HookBusContract, Message, ProviderCallSite, ProviderDelta, ToolDefinition } from "@amplifier-ts/contracts";
import { createError, providerErrors } from "@amplifier-ts/contracts";
import { callFailure } from "./call-failure.js";
import { CallWatch, type CallTimeouts } from "./call-watch.js";
import { checkUsage, type UsageReport } from "./usage-report.js";

/** One API call as a provider module makes it: the window, its tools and how to stream. */
export interface ApiCall {
  model: string;
  messages: Message[];
  tools?: ToolDefinition[];
  maxOutputTokens?: number;
  /** The call's own signal (the caller's, a timeout): give it to the SDK call. */
  signal: AbortSignal;
  /** Present when the call streams: each delta, already forwarded to the request's onDelta and the bus. */
  onDelta?: (delta: ProviderDelta) => void;
  /**
   * A streaming call must call this when it sees the API's closing event (finish_reason,
   * response.completed, message_stop): a stream that ends without it was cut, whatever the SDK
   * made of it (PROVIDER/CONNECTION_FAILED).
   */
  onStreamEnd?: () => void;
}

/** What came back, converted by an adapter's from* function. */
export interface ApiAnswer {
  messages: Message[];
  /** The API's body, kept for INVALID_RESPONSE. */
  raw: unknown;
  model?: string;
  stopReason?: string;
  /** The API's usage figures, unchecked (usageReport): undefined when the answer carried none. */
  usageReport?: UsageReport | undefined;
}

export interface ProviderCallOptions {
  site: ProviderCallSite;
  hooks?: HookBusContract<AmplifierEvents> | undefined;
  /** Stream even when the request has no onDelta (config `stream`). */
  stream?: boolean;
  maxOutputTokens?: number;
  /**
   * timeoutMs: one attempt, request to last byte (the SDK client must fetch through
   * watchedFetch for the part after the headers); streamIdleTimeoutMs: the longest silence of a stream.
   */
  timeouts: CallTimeouts;
}

/**
 * The life of one complete() call, the same for every provider module:
 *
 * | step                                   | on the bus                                             |
 * |----------------------------------------|--------------------------------------------------------|
 * | request checked (INVALID_ARGUMENT)     |                                                        |
 * | before the API call                    | `provider:request` { provider, model, messages, tools, maxOutputTokens, stream } |
 * | each streamed delta (when streaming)   | the request's onDelta, live                            |
 * | the call answered (when it streamed)   | `content_block:delta` / `thinking:delta` per delta, in order |
 * | the answer: exactly one assistant message, else PROVIDER/INVALID_RESPONSE | (then, after any usage_invalid) `provider:response` { message, usage, durationMs, stopReason } |
 * | a usage figure is not a non-negative safe integer (the answer stands, without usage) | `provider:usage_invalid` { provider, model, field, given, expected } per figure, before provider:response |
 * | the call failed (call-failure.ts: every API failure a PROVIDER/* code, timeouts included) | `provider:error` { error, retryable }, then it throws |
 *
 * `provider` in the events is the API (openai-chat, openai-responses, anthropic). The history is
 * never touched here: a failed call leaves nothing to add, and the caller adds the message it got.
 * Every call ends: the watch (call-watch.ts) holds timeoutMs over the whole attempt, body and
 * stream included, and streamIdleTimeoutMs between stream pieces.
 */
export async function runProviderCall(request: ChatRequest, options: ProviderCallOptions, send: (call: ApiCall) => Promise<ApiAnswer>): Promise<ChatResponse> {
  const { site, hooks } = options;
  checkRequest(request, site.module);
  const model = request.model ?? site.model;
  const where: ProviderCallSite = { ...site, model };
  const streaming = typeof request.onDelta === "function" || options.stream === true;
  const deltas: ProviderDelta[] = [];
  const watch = new CallWatch(options.timeouts, request.signal);
  let streamEnded = false;
  let callerThrew = false;
  const call: ApiCall = {
    model,
    messages: request.messages,
    ...(request.tools ? { tools: request.tools } : {}),
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    signal: watch.signal,
    ...(streaming
      ? {
          onDelta: (delta: ProviderDelta) => {
            deltas.push(delta);
            try {
              request.onDelta?.(delta);
            } catch (error) {
              callerThrew = true;
              throw error;
            }
          },
          onStreamEnd: () => void (streamEnded = true),
        }
      : {}),
  };
  await hooks?.emit("provider:request", { provider: site.provider, model, messages: request.messages, ...(request.tools ? { tools: request.tools } : {}), ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }), stream: streaming });
  const started = performance.now();
  let answer: ApiAnswer;
  try {
    answer = await watch.run(() => send(call));
    // The clock ran out while the SDK still made something of the bytes it had: not an answer.
    if (watch.timedOut !== undefined) throw watch.signal.reason;
    // An SDK may make an answer of a stream cut short (the Responses stream does): not an answer either.
    if (streaming && watch.answer?.eventStream === true && !streamEnded) throw new Error("the event stream closed without the API's closing event");
  } catch (thrown) {
    const error = callFailure(thrown, { site: where, watch, streaming, streamEnded, callerCaused: callerThrew || request.signal?.aborted === true, timeoutMs: options.timeouts.timeoutMs });
    if (error instanceof Error) await hooks?.emit("provider:error", { provider: site.provider, model, error, retryable: (error as { details?: { retryable?: boolean } }).details?.retryable === true });
    throw error;
  } finally {
    watch.finish();
  }
  const durationMs = performance.now() - started;
  // Streamed pieces reach the bus in order once the call is done: a hook never slows the stream.
  for (const delta of deltas) {
    if (delta.type === "text") await hooks?.emit("content_block:delta", { index: delta.index, delta: delta.text });
    else await hooks?.emit("thinking:delta", { delta: delta.text });
  }
  const [message, ...rest] = answer.messages;
  if (message === undefined || rest.length > 0 || message.role !== "assistant") {
    const error = providerErrors.create("INVALID_RESPONSE", `${site.provider} ${model}: ${answer.messages.length} messages came back`, { module: site.module, provider: site.provider, model, ...(watch.answer ? { status: watch.answer.status } : {}), expected: "one assistant message", given: answer.raw, retryable: false });
    await hooks?.emit("provider:error", { provider: site.provider, model, error, retryable: false });
    throw error;
  }
  const usage = await checkedUsage(answer, { provider: site.provider, model: answer.model ?? model }, hooks);
  const response: ChatResponse = {
    message,
    ...(usage ? { usage } : {}),
    ...(answer.model ? { model: answer.model } : {}),
    ...(answer.stopReason ? { stopReason: answer.stopReason } : {}),
  };
  await hooks?.emit("provider:response", { provider: site.provider, model: answer.model ?? model, message, durationMs, ...(usage ? { usage } : {}), ...(answer.stopReason ? { stopReason: answer.stopReason } : {}) });
  return response;
}

/** The answer's usage when every figure passes; each one that does not is reported and the usage dropped (the answer stands). */
async function checkedUsage(answer: ApiAnswer, who: { provider: string; model: string }, hooks: HookBusContract<AmplifierEvents> | undefined): Promise<BilledUsage | undefined> {
  const { usage, problems } = checkUsage(answer.usageReport);
  for (const problem of problems) await hooks?.emit("provider:usage_invalid", { ...who, ...problem });
  return usage;
}

function checkRequest(request: ChatRequest, module: string): void {
  const fail = (path: string, expected: string, given: unknown): never => {
    throw createError("INVALID_ARGUMENT", "complete() needs { messages, tools?, onDelta?, signal? }", { module, path, expected, given });
  };
  if (typeof request !== "object" || request === null) fail("request", "an object { messages, tools? }", request);
  if (!Array.isArray(request.messages) || request.messages.length === 0) fail("request.messages", "a non-empty array of messages (a window)", request.messages);
  if (request.tools !== undefined && !Array.isArray(request.tools)) fail("request.tools", "an array of tool definitions", request.tools);
  if (request.onDelta !== undefined && typeof request.onDelta !== "function") fail("request.onDelta", "a function (delta) => void", request.onDelta);
  if (request.model !== undefined && (typeof request.model !== "string" || request.model === "")) fail("request.model", "a model name", request.model);
}
