import type { Message } from "@amplifier-ts/contracts";
import { callArguments, forEachContentPart, forEachResultText } from "@amplifier-ts/contracts";

/**
 * Messages in the GenAI conventions' JSON shape (`gen_ai.input.messages` / `gen_ai.output.messages`,
 * open-telemetry/semantic-conventions-genai, gen-ai-input-messages.json), recorded only with
 * `captureContent`:
 *
 * | our part | their part |
 * |---|---|
 * | text (string content, text block; empty text left out) | `{ type: "text", content }` |
 * | a summary's text (`metadata.summary`: the compacted history) | `{ type: "compaction", content }` |
 * | tool call (OpenAI `tool_calls`, Anthropic `tool_use`) | `{ type: "tool_call", id, name, arguments }` (arguments parsed when JSON) |
 * | tool result (a `tool` message, a `tool_result` block) | `{ type: "tool_call_response", id, response }` (its text) |
 * | thinking | `{ type: "reasoning", content }` |
 * | image | `{ type: "uri", modality: "image", uri }` for a URL; `{ type: "image", omitted: "inline data" }` for inline bytes (never copied into a trace) |
 *
 * Roles: `system` and `developer` are `system`; the others as they are.
 */
export type GenAiPart = Readonly<Record<string, unknown> & { type: string }>;
export interface GenAiMessage {
  readonly role: string;
  readonly parts: GenAiPart[];
  readonly finish_reason?: string;
}

export function genAiMessages(messages: readonly Message[]): GenAiMessage[] {
  return messages.map(genAiMessage);
}

/** The answer as `gen_ai.output.messages`: one message with the API's stop reason. */
export function genAiOutput(message: Message, stopReason: string | undefined): GenAiMessage[] {
  return [{ ...genAiMessage(message), finish_reason: stopReason ?? "stop" }];
}

function genAiMessage(message: Message): GenAiMessage {
  const parts: GenAiPart[] = [];
  const role = message.role === "developer" ? "system" : message.role;
  if (message.role === "tool") {
    parts.push({ type: "tool_call_response", id: message.tool_call_id ?? null, response: textOf(message) });
    return { role, parts };
  }
  const summary = message.metadata?.summary !== undefined;
  forEachContentPart(message, {
    text: (content) => {
      if (content !== "") parts.push(summary ? { type: "compaction", content } : { type: "text", content });
    },
    toolCall: (call) => void parts.push({ type: "tool_call", id: call.id ?? null, name: call.name ?? "", arguments: parsed(callArguments(call)) }),
    toolResult: (block) => {
      let response = "";
      forEachResultText(block, (text) => void (response += text));
      parts.push({ type: "tool_call_response", id: block.tool_use_id ?? null, response });
    },
    thinking: (content) => void parts.push({ type: "reasoning", content }),
    image: (block) => {
      const url = block.type === "image_url" ? block.image_url.url : block.source?.type === "url" ? block.source.url : undefined;
      parts.push(url !== undefined && !url.startsWith("data:") ? { type: "uri", modality: "image", uri: url } : { type: "image", omitted: "inline data" });
    },
  });
  return { role, parts };
}

function textOf(message: Message): string {
  let text = "";
  forEachContentPart(message, { text: (t) => void (text += t), resultText: (t) => void (text += t) });
  return text;
}

function parsed(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return json;
  }
}
