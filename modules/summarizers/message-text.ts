/**
 * The text a summarizer reads from a message: its prose, the tools it called (name + arguments)
 * and the results it carries — images, thinking and redacted blocks are left out (a summary is
 * about what was said and done, not about the model's scratchpad).
 */
import type { Message } from "@amplifier-ts/contracts";
import { callArguments, forEachContentPart } from "@amplifier-ts/contracts";

export interface MessageText {
  readonly role: Message["role"];
  /** Prose and tool-result text. */
  readonly text: string;
  /** `name(arguments)` of each tool call the message makes. */
  readonly toolCalls: readonly string[];
  /** The tool name of a result (OpenAI `name`), when the message is one. */
  readonly toolName?: string;
}

export function messageText(message: Message): MessageText {
  const parts: string[] = [];
  // OpenAI tool_calls are listed before tool_use blocks (the walker visits them after the content).
  const openaiCalls: string[] = [];
  const blockCalls: string[] = [];
  forEachContentPart(message, {
    text: (t) => void parts.push(t),
    resultText: (t) => void parts.push(t),
    toolCall: (call) => void (call.style === "openai" ? openaiCalls : blockCalls).push(`${call.name}(${compactJson(callArguments(call))})`),
  });
  return {
    role: message.role,
    text: parts.join("\n"),
    toolCalls: [...openaiCalls, ...blockCalls],
    ...(message.role === "tool" && typeof message.name === "string" ? { toolName: message.name } : {}),
  };
}

/** A transcript line per message (`user: …`, `assistant → read_file({"path":"a.ts"})`), for prompts. */
export function transcript(messages: readonly Message[], maxCharsPerMessage = 4_000): string {
  return transcriptLines(messages, maxCharsPerMessage).join("\n");
}

/** The transcript's lines, one per message (its text cut to `maxCharsPerMessage`). */
export function transcriptLines(messages: readonly Message[], maxCharsPerMessage = 4_000): string[] {
  return messages
    .map((m) => {
      const { role, text, toolCalls } = messageText(m);
      const calls = toolCalls.length ? ` → ${toolCalls.join(", ")}` : "";
      const body = text.length > maxCharsPerMessage ? `${text.slice(0, maxCharsPerMessage)} […]` : text;
      return `${role}${calls}: ${body}`.trim();
    });
}

function compactJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}
