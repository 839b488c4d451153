import type { ProviderDelta } from "@amplifier-ts/contracts";
import { fromOpenAIChat, toOpenAIChat, type OpenAIChatCompletion } from "@amplifier-ts/adapters";
import type OpenAI from "openai";
import { usageReport, type ApiAnswer, type ApiCall } from "@amplifier-ts/provider-kit";

type ChatParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
type Completion = OpenAI.Chat.Completions.ChatCompletion;

/**
 * One Chat Completions call (POST /chat/completions). Streaming reads the SDK's stream helper
 * (chunks → onDelta; `stream_options.include_usage` so the last chunk carries the bill) and its
 * accumulated final completion, so both paths convert the same completion back.
 */
export async function callChatCompletions(client: OpenAI, call: ApiCall): Promise<ApiAnswer> {
  const request = toOpenAIChat(call.messages, call.tools ? { tools: call.tools } : {});
  const body = {
    model: call.model,
    ...request,
    ...(call.maxOutputTokens === undefined ? {} : { max_completion_tokens: call.maxOutputTokens }),
  } as unknown as ChatParams;
  const options = { signal: call.signal };
  let completion: Completion;
  if (call.onDelta) {
    const stream = client.chat.completions.stream({ ...body, stream: true, stream_options: { include_usage: true } }, options);
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      const text = choice?.delta?.content;
      if (text) call.onDelta({ type: "text", text, index: 0 } satisfies ProviderDelta);
      if (choice?.finish_reason) call.onStreamEnd?.();
    }
    completion = (await stream.finalChatCompletion()) as Completion;
  } else {
    completion = await client.chat.completions.create(body, options);
  }
  return {
    messages: fromOpenAIChat(completion as unknown as OpenAIChatCompletion),
    raw: completion,
    model: completion.model,
    ...(completion.choices[0]?.finish_reason ? { stopReason: completion.choices[0].finish_reason } : {}),
    usageReport: usageReport(completion.usage, {
      figures: ["prompt_tokens", "completion_tokens", "prompt_tokens_details.cached_tokens"],
      optional: ["prompt_tokens_details.cached_tokens"],
      bill: (n) => ({ inputTokens: n.prompt_tokens, outputTokens: n.completion_tokens, cacheReadTokens: n["prompt_tokens_details.cached_tokens"], cacheWriteTokens: 0 }),
    }),
  };
}
