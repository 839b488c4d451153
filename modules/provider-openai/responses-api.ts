import type { ProviderDelta } from "@amplifier-ts/contracts";
import { fromOpenAIResponses, toOpenAIResponses, type OpenAIResponse } from "@amplifier-ts/adapters";
import type OpenAI from "openai";
import type { ResponseStreamParams } from "openai/lib/responses/ResponseStream";
import { usageReport, type ApiAnswer, type ApiCall } from "@amplifier-ts/provider-kit";

type ResponsesParams = OpenAI.Responses.ResponseCreateParamsNonStreaming;
type Response = OpenAI.Responses.Response;

/**
 * One Responses API call (POST /responses), stateless (`store: false`: the window is the whole
 * conversation, as a context manager sends it). Streaming reads the SDK's ResponseStream: output
 * text and reasoning summary deltas → onDelta; its final response is converted like a plain one.
 */
export async function callResponses(client: OpenAI, call: ApiCall, contextManagement?: readonly { type: "compaction"; compact_threshold: number }[]): Promise<ApiAnswer> {
  const request = toOpenAIResponses(call.messages, call.tools ? { tools: call.tools } : {});
  const body = {
    model: call.model,
    ...request,
    store: false,
    ...(call.maxOutputTokens === undefined ? {} : { max_output_tokens: call.maxOutputTokens }),
    ...(contextManagement ? { context_management: contextManagement } : {}),
  } as unknown as ResponsesParams;
  const options = { signal: call.signal };
  let response: Response;
  if (call.onDelta) {
    const stream = client.responses.stream(body as unknown as ResponseStreamParams, options);
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") call.onDelta({ type: "text", text: event.delta, index: event.output_index } satisfies ProviderDelta);
      else if (event.type === "response.reasoning_summary_text.delta") call.onDelta({ type: "thinking", text: event.delta, index: event.output_index });
      else if (event.type === "response.completed" || event.type === "response.incomplete") call.onStreamEnd?.();
      else if (event.type === "error") throw streamFailure(event.message, event.code);
      else if (event.type === "response.failed") throw streamFailure(event.response.error?.message ?? "response.failed", event.response.error?.code);
    }
    response = (await stream.finalResponse()) as Response;
  } else {
    response = await client.responses.create(body, options);
  }
  const compactions = (response.output ?? []).filter((item) => (item as { type?: string }).type === "compaction").length;
  return {
    messages: fromOpenAIResponses(response as unknown as OpenAIResponse),
    raw: response,
    model: response.model,
    ...(response.status ? { stopReason: response.incomplete_details?.reason ?? response.status } : {}),
    // Server-side compaction leaves its encrypted item in the output; the usage has no split for
    // it (its tokens are inside the figures), so the bill counts the compactions only.
    usageReport: usageReport(response.usage, {
      figures: ["input_tokens", "output_tokens", "input_tokens_details.cached_tokens"],
      optional: ["input_tokens_details.cached_tokens"],
      bill: (n) => ({
        inputTokens: n.input_tokens,
        outputTokens: n.output_tokens,
        cacheReadTokens: n["input_tokens_details.cached_tokens"],
        cacheWriteTokens: 0,
        ...(compactions > 0 ? { compaction: { iterations: compactions } } : {}),
      }),
    }),
  };
}

/**
 * The Responses stream reports a failure as an event (`error`, `response.failed`) that the SDK
 * passes on instead of throwing: thrown here in the shape of the SDK's APIError without a status
 * (`status`, `error`), which providerErrorFrom reads as it reads any SDK error.
 */
function streamFailure(message: string, code: string | null | undefined): Error {
  return Object.assign(new Error(message), { status: undefined, error: { message, ...(code ? { code } : {}) } });
}
