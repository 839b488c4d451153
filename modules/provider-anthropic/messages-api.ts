import type { ApiAnswer, ApiCall } from "@amplifier-ts/provider-kit";
import { fromAnthropic, toAnthropic, type AnthropicResponse } from "@amplifier-ts/adapters";
import type Anthropic from "@anthropic-ai/sdk";

type MessageParams = Anthropic.Messages.MessageCreateParamsNonStreaming;
type AnthropicMessage = Anthropic.Messages.Message;

/**
 * One Messages API call (POST /v1/messages). Instructions go to `system`, the window to
 * `messages` (toAnthropic: tool_result blocks right after their tool_use, thinking signatures
 * kept, cache_control on the stable prefix with `cache`). Streaming reads the SDK's MessageStream:
 * text and thinking deltas → onDelta; its final message is converted like a plain one.
 */
export async function callMessages(client: Anthropic, call: ApiCall & { maxOutputTokens: number }, cache: boolean): Promise<ApiAnswer> {
  const request = toAnthropic(call.messages, { cache, ...(call.tools ? { tools: call.tools } : {}) });
  const body = { model: call.model, max_tokens: call.maxOutputTokens, ...request } as unknown as MessageParams;
  const options = call.signal ? { signal: call.signal } : {};
  let message: AnthropicMessage;
  if (call.onDelta) {
    const stream = client.messages.stream(body, options);
    for await (const event of stream) {
      if (event.type !== "content_block_delta") continue;
      if (event.delta.type === "text_delta") call.onDelta({ type: "text", text: event.delta.text, index: event.index });
      else if (event.delta.type === "thinking_delta") call.onDelta({ type: "thinking", text: event.delta.thinking, index: event.index });
    }
    message = await stream.finalMessage();
  } else {
    message = await client.messages.create(body, options);
  }
  const { usage } = message;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  return {
    messages: fromAnthropic(message as unknown as AnthropicResponse),
    raw: message,
    model: message.model,
    ...(message.stop_reason ? { stopReason: message.stop_reason } : {}),
    usage: { inputTokens: usage.input_tokens + cacheRead + cacheWrite, outputTokens: usage.output_tokens, cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite },
  };
}
