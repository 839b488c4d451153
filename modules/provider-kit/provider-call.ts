import type { AmplifierEvents, BilledUsage, ChatRequest, ChatResponse, HookBusContract, Message, ProviderCallSite, ProviderDelta, ToolDefinition } from "@amplifier-ts/contracts";
import { createError, providerErrorFrom, providerErrors } from "@amplifier-ts/contracts";

/** One API call as a provider module makes it: the window, its tools and how to stream. */
export interface ApiCall {
  model: string;
  messages: Message[];
  tools?: ToolDefinition[];
  maxOutputTokens?: number;
  signal?: AbortSignal;
  /** Present when the call streams: each delta, already forwarded to the request's onDelta and the bus. */
  onDelta?: (delta: ProviderDelta) => void;
}

/** What came back, converted by an adapter's from* function. */
export interface ApiAnswer {
  messages: Message[];
  /** The API's body, kept for INVALID_RESPONSE. */
  raw: unknown;
  model?: string;
  stopReason?: string;
  usage?: BilledUsage;
}

export interface ProviderCallOptions {
  site: ProviderCallSite;
  hooks?: HookBusContract<AmplifierEvents> | undefined;
  /** Stream even when the request has no onDelta (config `stream`). */
  stream?: boolean;
  maxOutputTokens?: number;
}

/**
 * The life of one complete() call, the same for every provider module:
 *
 * | step                                   | on the bus                                             |
 * |----------------------------------------|--------------------------------------------------------|
 * | request checked (INVALID_ARGUMENT)     |                                                        |
 * | before the API call                    | `provider:request` { provider, model, messages, tools } |
 * | each streamed delta (when streaming)   | the request's onDelta, live                            |
 * | the call answered (when it streamed)   | `content_block:delta` / `thinking:delta` per delta, in order |
 * | the answer: exactly one assistant message, else PROVIDER/INVALID_RESPONSE | `provider:response` { message, usage, durationMs, stopReason } |
 * | the API failed (providerErrorFrom)     | `provider:error` { error, retryable }, then it throws   |
 *
 * `provider` in the events is the API (openai-chat, openai-responses, anthropic).
 */
export async function runProviderCall(request: ChatRequest, options: ProviderCallOptions, send: (call: ApiCall) => Promise<ApiAnswer>): Promise<ChatResponse> {
  const { site, hooks } = options;
  checkRequest(request, site.module);
  const model = request.model ?? site.model;
  const where: ProviderCallSite = { ...site, model };
  const streaming = typeof request.onDelta === "function" || options.stream === true;
  const deltas: ProviderDelta[] = [];
  const call: ApiCall = {
    model,
    messages: request.messages,
    ...(request.tools ? { tools: request.tools } : {}),
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    ...(request.signal ? { signal: request.signal } : {}),
    ...(streaming ? { onDelta: (delta: ProviderDelta) => { deltas.push(delta); request.onDelta?.(delta); } } : {}),
  };
  await hooks?.emit("provider:request", { provider: site.provider, model, messages: request.messages, ...(request.tools ? { tools: request.tools } : {}) });
  const started = performance.now();
  let answer: ApiAnswer;
  try {
    answer = await send(call);
  } catch (thrown) {
    const error = providerErrorFrom(thrown, where);
    if (error instanceof Error) await hooks?.emit("provider:error", { provider: site.provider, model, error, retryable: (error as { details?: { retryable?: boolean } }).details?.retryable === true });
    throw error;
  }
  const durationMs = performance.now() - started;
  // Streamed pieces reach the bus in order once the call is done: a hook never slows the stream.
  for (const delta of deltas) {
    if (delta.type === "text") await hooks?.emit("content_block:delta", { index: delta.index, delta: delta.text });
    else await hooks?.emit("thinking:delta", { delta: delta.text });
  }
  const [message, ...rest] = answer.messages;
  if (message === undefined || rest.length > 0 || message.role !== "assistant") {
    throw providerErrors.create("INVALID_RESPONSE", `${site.provider} ${model}: ${answer.messages.length} messages came back`, { module: site.module, provider: site.provider, model, expected: "one assistant message", given: answer.raw });
  }
  const response: ChatResponse = {
    message,
    ...(answer.usage ? { usage: answer.usage } : {}),
    ...(answer.model ? { model: answer.model } : {}),
    ...(answer.stopReason ? { stopReason: answer.stopReason } : {}),
  };
  await hooks?.emit("provider:response", { provider: site.provider, model: answer.model ?? model, message, durationMs, ...(answer.usage ? { usage: answer.usage } : {}), ...(answer.stopReason ? { stopReason: answer.stopReason } : {}) });
  return response;
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
