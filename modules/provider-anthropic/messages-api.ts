import { usageReport, type ApiAnswer, type ApiCall } from "@amplifier-ts/provider-kit";
import { fromAnthropic, toAnthropic, type AnthropicResponse } from "@amplifier-ts/adapters";
import type Anthropic from "@anthropic-ai/sdk";
import { betasFor, type AnthropicContextManagement } from "./context-management.js";

type MessageParams = Anthropic.Messages.MessageCreateParamsNonStreaming;
type AnthropicMessage = Anthropic.Messages.Message;

/**
 * One Messages API call (POST /v1/messages). Instructions go to `system`, the window to
 * `messages` (toAnthropic: tool_result blocks right after their tool_use, thinking signatures
 * kept, cache_control on the stable prefix with `cache`). Streaming reads the SDK's MessageStream:
 * text and thinking deltas → onDelta; its final message is converted like a plain one.
 */
export async function callMessages(client: Anthropic, call: ApiCall & { maxOutputTokens: number }, cache: boolean, contextManagement?: AnthropicContextManagement): Promise<ApiAnswer> {
  const request = toAnthropic(call.messages, { cache, ...(call.tools ? { tools: call.tools } : {}) });
  const body = { model: call.model, max_tokens: call.maxOutputTokens, ...request, ...(contextManagement ? { context_management: contextManagement } : {}) } as unknown as MessageParams;
  const options = { signal: call.signal };
  // Context management is a beta: the SDK's beta client sends it with its anthropic-beta header(s).
  const betas = betasFor(contextManagement);
  const messages = (betas.length > 0 ? { create: (b: MessageParams, o: typeof options) => client.beta.messages.create({ ...(b as object), betas } as never, o), stream: (b: MessageParams, o: typeof options) => client.beta.messages.stream({ ...(b as object), betas } as never, o) } : client.messages) as Pick<Anthropic["messages"], "create" | "stream">;
  let message: AnthropicMessage;
  if (call.onDelta) {
    const stream = messages.stream(body, options);
    for await (const event of stream) {
      if (event.type === "message_stop") call.onStreamEnd?.();
      if (event.type !== "content_block_delta") continue;
      if (event.delta.type === "text_delta") call.onDelta({ type: "text", text: event.delta.text, index: event.index });
      else if (event.delta.type === "thinking_delta") call.onDelta({ type: "thinking", text: event.delta.thinking, index: event.index });
    }
    message = await stream.finalMessage();
  } else {
    message = (await messages.create(body, options)) as AnthropicMessage;
  }
  return {
    messages: fromAnthropic(message as unknown as AnthropicResponse),
    raw: message,
    model: message.model,
    ...(message.stop_reason ? { stopReason: message.stop_reason } : {}),
    // Anthropic bills input outside the cache apart: inputTokens adds the three (checked figures only).
    // The compaction iterations (usage.iterations, type "compaction") are left out of the top-level
    // figures by the API: summed apart, they are the bill's `compaction`, priced apart.
    usageReport: usageReport(message.usage, {
      figures: ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", ...COMPACTION_FIGURES, CLEARED_FIGURE],
      optional: ["cache_read_input_tokens", "cache_creation_input_tokens", ...COMPACTION_FIGURES, CLEARED_FIGURE],
      derived: { ...compactionFigures(message.usage), ...clearedFigure((message as { context_management?: unknown }).context_management) },
      bill: (n) => ({
        inputTokens: n.input_tokens + n.cache_read_input_tokens + n.cache_creation_input_tokens,
        outputTokens: n.output_tokens,
        cacheReadTokens: n.cache_read_input_tokens,
        cacheWriteTokens: n.cache_creation_input_tokens,
        ...(n["iterations[compaction].count"] > 0
          ? {
              compaction: {
                iterations: n["iterations[compaction].count"],
                inputTokens: n["iterations[compaction].input_tokens"] + n["iterations[compaction].cache_read_input_tokens"] + n["iterations[compaction].cache_creation_input_tokens"],
                outputTokens: n["iterations[compaction].output_tokens"],
                cacheReadTokens: n["iterations[compaction].cache_read_input_tokens"],
                cacheWriteTokens: n["iterations[compaction].cache_creation_input_tokens"],
              },
            }
          : {}),
        ...(n[CLEARED_FIGURE] > 0 ? { clearedInputTokens: n[CLEARED_FIGURE] } : {}),
      }),
    }),
  };
}

const COMPACTION_FIGURES = ["iterations[compaction].count", "iterations[compaction].input_tokens", "iterations[compaction].output_tokens", "iterations[compaction].cache_read_input_tokens", "iterations[compaction].cache_creation_input_tokens"] as const;
const ITERATION_FIGURES = ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"] as const;

/**
 * The sums over the compaction entries of `usage.iterations`, by figure (none when there is no
 * such entry). A figure that is not a number is passed on as given, so the usage check names it.
 */
function compactionFigures(usage: unknown): Partial<Record<(typeof COMPACTION_FIGURES)[number], unknown>> {
  const iterations: unknown = (usage as { iterations?: unknown } | null)?.iterations;
  if (!Array.isArray(iterations)) return {};
  const compactions = iterations.filter((entry): entry is Record<string, unknown> => (entry as { type?: unknown } | null)?.type === "compaction");
  if (compactions.length === 0) return {};
  const out: Partial<Record<(typeof COMPACTION_FIGURES)[number], unknown>> = { "iterations[compaction].count": compactions.length };
  for (const figure of ITERATION_FIGURES) {
    let sum: unknown = 0;
    for (const entry of compactions) {
      const value = entry[figure];
      if ((value === undefined || value === null) && figure.startsWith("cache_")) continue;
      sum = typeof value === "number" && typeof sum === "number" ? sum + value : typeof sum === "number" ? value : sum;
    }
    out[`iterations[compaction].${figure}`] = sum;
  }
  return out;
}

const CLEARED_FIGURE = "context_management.applied_edits[].cleared_input_tokens";

/** The input tokens the applied context edits cleared (summed), as a figure checked like the usage's. */
function clearedFigure(management: unknown): Record<string, unknown> {
  const edits: unknown = (management as { applied_edits?: unknown } | null | undefined)?.applied_edits;
  if (!Array.isArray(edits) || edits.length === 0) return {};
  let sum: unknown = 0;
  for (const edit of edits) {
    const value = (edit as { cleared_input_tokens?: unknown } | null)?.cleared_input_tokens;
    if (value === undefined || value === null) continue;
    sum = typeof value === "number" && typeof sum === "number" ? sum + value : typeof sum === "number" ? value : sum;
  }
  return { [CLEARED_FIGURE]: sum };
}
