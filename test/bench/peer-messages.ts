/**
 * What the peers of the "peers" scenario share: our messages as text, the AI SDK message shape
 * (AI SDK pruneMessages; Mastra 0.x reads the same shape in AI SDK 4's field names), and the map
 * from a peer's tagged native messages back to ours.
 */
import type { ModelMessage } from "ai";
import type { ContentBlock, Message } from "../../contracts/generated/message.js";

/** One native message and what it stands for among ours. */
export interface Piece {
  origin: Message;
  /** How many native messages `origin` became (a window holding fewer has a partial message). */
  parts: number;
  /** The part of `origin` this piece carries (content blocks of a split user message); undefined = all of it. */
  blocks?: ContentBlock[];
}

export const text = (content: Message["content"]): string => (typeof content === "string" ? content : (content ?? []).map((b) => (b.type === "text" ? b.text : b.type === "tool_result" ? text(b.content as Message["content"]) : "")).join(""));

/**
 * Maps tagged native messages back to ours: consecutive pieces of one message become it again
 * when all are there, else the message with the blocks of the pieces that are. `as` may replace
 * a piece's stand-in (a message the peer changed).
 */
export function backToOurs(tags: readonly (number | undefined)[], pieces: readonly Piece[], as: (k: number, piece: Piece) => Message = (_k, p) => p.origin): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < tags.length; ) {
    const first = pieces[tags[i] ?? -1];
    if (!first) throw new Error("a peer returned a message the bench did not give it");
    let j = i + 1;
    while (j < tags.length && pieces[tags[j] ?? -1]?.origin === first.origin) j++;
    if (j - i === first.parts || first.blocks === undefined) {
      // A copy, as every window is (the invariant checks refuse the stored object itself).
      out.push({ ...as(tags[i]!, first) });
    } else {
      const blocks = tags.slice(i, j).flatMap((k) => pieces[k!]!.blocks ?? []);
      out.push({ ...first.origin, content: blocks });
    }
    i = j;
  }
  return out;
}

/** The blocks of piece `k` of a user message split into its tool results (one piece each), then the rest. */
export function splitBlocks(m: Message, parts: number, k: number): ContentBlock[] | undefined {
  if (m.role !== "user" || !Array.isArray(m.content) || parts < 2) return undefined;
  const results = m.content.filter((b) => b.type === "tool_result");
  return k < results.length ? [results[k]!] : m.content.filter((b) => b.type !== "tool_result");
}

export function toModel(message: Message, names: Map<string, string>): ModelMessage[] {
  switch (message.role) {
    case "system":
    case "developer":
      return [{ role: "system", content: text(message.content) }];
    case "tool":
      return [{ role: "tool", content: [{ type: "tool-result", toolCallId: message.tool_call_id ?? "", toolName: names.get(message.tool_call_id ?? "") ?? "tool", output: { type: "text", value: text(message.content) } }] }];
    case "assistant": {
      const parts: Exclude<Extract<ModelMessage, { role: "assistant" }>["content"], string> = [];
      const body = text(message.content);
      if (body) parts.push({ type: "text", text: body });
      for (const call of message.tool_calls ?? []) {
        names.set(call.id, call.function.name);
        parts.push({ type: "tool-call", toolCallId: call.id, toolName: call.function.name, input: JSON.parse(call.function.arguments) as unknown });
      }
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (block.type !== "tool_use") continue;
        names.set(block.id, block.name);
        parts.push({ type: "tool-call", toolCallId: block.id, toolName: block.name, input: block.input });
      }
      return [{ role: "assistant", content: parts }];
    }
    default: {
      if (!Array.isArray(message.content)) return [{ role: "user", content: message.content ?? "" }];
      const results = message.content.filter((b) => b.type === "tool_result");
      const rest = message.content.filter((b) => b.type !== "tool_result");
      const out: ModelMessage[] = [];
      if (results.length) {
        out.push({
          role: "tool",
          content: results.map((b) => ({ type: "tool-result" as const, toolCallId: b.type === "tool_result" ? b.tool_use_id : "", toolName: names.get(b.type === "tool_result" ? b.tool_use_id : "") ?? "tool", output: { type: "text" as const, value: text([b]) } })),
        });
      }
      if (rest.length) out.push({ role: "user", content: text(rest) });
      return out;
    }
  }
}

/** The providerOptions key under which a converted AI SDK message carries its piece's index. */
export const PIECE_TAG = "amplifierBench";

/**
 * One of our messages as AI SDK ModelMessages (toModel), each tagged with its piece's index
 * (`providerOptions[PIECE_TAG].piece`) and recorded in `pieces` (a tool message split off an
 * Anthropic-style message keeps its result blocks), then pushed to `messages`. Returns the converted.
 */
export function pushAsModel(m: Message, names: Map<string, string>, pieces: Piece[], messages: ModelMessage[]): ModelMessage[] {
  const converted = toModel(m, names);
  const split = converted.length > 1 && Array.isArray(m.content);
  for (const c of converted) {
    c.providerOptions = { [PIECE_TAG]: { piece: pieces.length } };
    const blocks = split ? (m.content as ContentBlock[]).filter((b) => (c.role === "tool") === (b.type === "tool_result")) : undefined;
    pieces.push({ origin: m, parts: converted.length, ...(blocks ? { blocks } : {}) });
    messages.push(c);
  }
  return converted;
}
