import { callArguments, forEachContentPart, isCritical, isEphemeral, isTurnNote, resultIdsOf, type Message } from "@amplifier-ts/contracts";
import type { MessageView, ToolCallView } from "../inspector-data.js";

/**
 * Stored messages → what the page shows of them (runs on the server and in `replay --html`, so the
 * page ships no message walker): text parts joined in content order (thinking marked, tool result
 * text included), tool calls with their arguments as JSON text, the call ids a message answers,
 * and the flags the timeline marks. `tokens[i]`, when given, is what message i costs alone.
 */
export function messageViews(messages: readonly Message[], tokens?: readonly number[]): MessageView[] {
  return messages.map((message, index) => messageView(message, index, tokens?.[index]));
}

export function messageView(message: Message, index: number, tokens?: number): MessageView {
  const parts: string[] = [];
  const toolCalls: ToolCallView[] = [];
  let images = 0;
  forEachContentPart(message, {
    text: (text) => parts.push(text),
    resultText: (text) => parts.push(text),
    thinking: (text) => parts.push(`[thinking] ${text}`),
    image: () => {
      images++;
    },
    toolCall: (call) => toolCalls.push({ id: String(call.id), name: String(call.name), arguments: String(callArguments(call) ?? "") }),
  });
  const metadata = message.metadata;
  const view: MessageView = {
    index,
    role: String(message.role),
    text: parts.join("\n"),
    toolCalls,
    resultFor: resultIdsOf(message),
    images,
    note: isTurnNote(message),
    ephemeral: isEphemeral(message),
    critical: isCritical(message),
  };
  if (typeof metadata?.id === "string") view.id = metadata.id;
  if (typeof message.name === "string") view.name = message.name;
  if (typeof metadata?.timestamp === "string") view.timestamp = metadata.timestamp;
  if (Array.isArray(metadata?.summary?.covers)) view.summaryOf = metadata.summary.covers.map(String);
  if (tokens !== undefined) view.tokens = tokens;
  return view;
}
