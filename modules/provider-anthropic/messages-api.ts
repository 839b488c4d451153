import { usageReport, type ApiAnswer, type ApiCall } from "@amplifier-ts/provider-kit";
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
  const options = { signal: call.signal };
  let message: AnthropicMessage;
  if (call.onDelta) {
    const stream = client.messages.stream(body, options);
    for await (const event of stream) {
      if (event.type === "message_stop") call.onStreamEnd?.();
      if (event.type !== "content_block_delta") continue;
      if (event.delta.type === "text_delta") call.onDelta({ type: "text", text: event.delta.text, index: event.index });
      else if (event.delta.type === "thinking_delta") call.onDelta({ type: "thinking", text: event.delta.thinking, index: event.index });
    }
    message = await stream.finalMessage();
  } else {
    message = await client.messages.create(body, options);
  }
  return {
    messages: fromAnthropic(message as unknown as AnthropicResponse),
    raw: message,
    model: message.model,
    ...(message.stop_reason ? { stopReason: message.stop_reason } : {}),
    // Anthropic bills input outside the cache apart: inputTokens adds the three (checked figures only).
    usageReport: usageReport(message.usage, {
      figures: ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"],
      optional: ["cache_read_input_tokens", "cache_creation_input_tokens"],
      bill: (n) => ({
        inputTokens: n.input_tokens + n.cache_read_input_tokens + n.cache_creation_input_tokens,
        outputTokens: n.output_tokens,
        cacheReadTokens: n.cache_read_input_tokens,
        cacheWriteTokens: n.cache_creation_input_tokens,
      }),
    }),
  };
}
