/**
 * Mastra's message objects (MastraMessageV2: `content.parts` in the AI SDK 4 UI shape) ↔ the AI SDK
 * 5 ModelMessages the window fitter knows — the split Mastra itself makes before a model call
 * (MessageList → aiV5.model()): one Mastra assistant message holding a whole multi-step answer is
 * several model messages (assistant with the tool calls, tool with their results, assistant with the
 * text that follows), so a tool call and its result are two messages the fitter keeps together.
 *
 * Each model message (a "piece") remembers which parts of which Mastra message it came from, so the
 * window maps back to Mastra's own objects: a message whose pieces all survive unchanged is the SAME
 * object; one the fitter shortened or kept only partly is a copy (same id) with those parts rewritten.
 */
import type { MastraMessageV2 } from "@mastra/core/agent";

export type MastraPart = MastraMessageV2["content"]["parts"][number];
type ToolInvocationPart = Extract<MastraPart, { type: "tool-invocation" }>;

/** The AI SDK 5 ModelMessage parts this module produces and reads back (the fitter's "ai-sdk" format). */
export type ModelPart =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "file"; data: unknown; mediaType: string }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: unknown }
  | { type: "tool-result"; toolCallId: string; toolName: string; output: ToolOutput };
export type ToolOutput = { type: "text"; value: string } | { type: "json"; value: unknown };
export interface ModelMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | ModelPart[];
}

/** One model message made from a Mastra message; `parts[j]` is the Mastra part behind `message.content[j]`. */
export interface Piece {
  readonly owner: number;
  readonly message: ModelMessage;
  readonly parts: readonly number[];
}

/** The pieces of one Mastra message, in order (none for a message with nothing the model sees). */
export function piecesOf(message: MastraMessageV2, owner: number): Piece[] {
  if (message.role === "system") {
    const text = textOf(message);
    return [{ owner, message: { role: "system", content: text }, parts: [] }];
  }
  const pieces: Piece[] = [];
  let content: ModelPart[] = [];
  let parts: number[] = [];
  let results: ModelPart[] = [];
  let resultParts: number[] = [];
  const role = message.role === "user" ? "user" : "assistant";
  const flush = () => {
    if (content.length > 0) pieces.push({ owner, message: { role, content }, parts });
    if (results.length > 0) pieces.push({ owner, message: { role: "tool", content: results }, parts: resultParts });
    content = [];
    parts = [];
    results = [];
    resultParts = [];
  };
  message.content.parts.forEach((part, index) => {
    // A new step, or content after tool results, starts a new assistant message (as the AI SDK's
    // convertToModelMessages splits a UI message at its step boundaries).
    if (part.type === "step-start" || (results.length > 0 && part.type !== "tool-invocation")) flush();
    const converted = modelPartOf(part);
    if (converted === undefined) return;
    content.push(converted);
    parts.push(index);
    if (part.type === "tool-invocation" && part.toolInvocation.state === "result") {
      results.push(resultOf(part));
      resultParts.push(index);
    }
  });
  flush();
  return pieces;
}

/** A Mastra part as the model sees it; undefined for parts that send nothing (step marks, sources). */
function modelPartOf(part: MastraPart): ModelPart | undefined {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "reasoning":
      return { type: "reasoning", text: part.reasoning };
    case "file":
      return { type: "file", data: part.data, mediaType: part.mimeType };
    case "tool-invocation": {
      const call = part.toolInvocation;
      return { type: "tool-call", toolCallId: call.toolCallId, toolName: call.toolName, input: call.args };
    }
    default:
      return undefined;
  }
}

function resultOf(part: ToolInvocationPart): ModelPart {
  const call = part.toolInvocation as ToolInvocationPart["toolInvocation"] & { result?: unknown };
  const output: ToolOutput = typeof call.result === "string" ? { type: "text", value: call.result } : { type: "json", value: call.result ?? null };
  return { type: "tool-result", toolCallId: call.toolCallId, toolName: call.toolName, output };
}

/** What a model part becomes when written back into the Mastra part it came from. */
export function writeBack(original: MastraPart, part: ModelPart): MastraPart {
  if (part.type === "text" && original.type === "text") return { ...original, text: part.text };
  if (part.type === "reasoning" && original.type === "reasoning") return { ...original, reasoning: part.text, details: [{ type: "text", text: part.text }] };
  if (original.type === "tool-invocation") {
    if (part.type === "tool-call") return { ...original, toolInvocation: { ...original.toolInvocation, args: part.input } } as MastraPart;
    if (part.type === "tool-result" && original.toolInvocation.state === "result") return { ...original, toolInvocation: { ...original.toolInvocation, result: part.output.value } };
  }
  return original;
}

/** A model message the fitter made on its own (a summary, a marker) as a Mastra message. */
export function mastraMessageOf(message: ModelMessage, id: string): MastraMessageV2 {
  const text = typeof message.content === "string" ? message.content : message.content.map((p) => (p.type === "text" || p.type === "reasoning" ? p.text : "")).join("\n");
  const role = message.role === "system" ? "system" : message.role === "assistant" ? "assistant" : "user";
  return { id, role, createdAt: new Date(), content: { format: 2, parts: [{ type: "text", text }], content: text } };
}

export function textOf(message: MastraMessageV2): string {
  const texts = message.content.parts.flatMap((p) => (p.type === "text" ? [p.text] : []));
  return texts.length > 0 ? texts.join("\n") : (message.content.content ?? "");
}
