/** Small message builders for the window tests: every message gets the given id. */
import type { ContentBlock, Message, MessageMetadata } from "../../contracts/generated/message.js";

type Meta = Partial<MessageMetadata>;

export const system = (id: string, text = "You are a careful agent.", meta: Meta = {}): Message => ({
  role: "system",
  content: text,
  metadata: { id, ...meta },
});

export const user = (id: string, text: string, meta: Meta = {}): Message => ({ role: "user", content: text, metadata: { id, ...meta } });

export const assistant = (id: string, text: string, meta: Meta = {}): Message => ({
  role: "assistant",
  content: text,
  metadata: { id, ...meta },
});

/** OpenAI style: assistant.tool_calls. */
export const call = (id: string, callIds: string[], meta: Meta = {}): Message => ({
  role: "assistant",
  content: null,
  tool_calls: callIds.map((c) => ({ id: c, type: "function", function: { name: "read_file", arguments: `{"path":"${c}.ts"}` } })),
  metadata: { id, ...meta },
});

/** OpenAI style: a tool message. */
export const result = (id: string, callId: string, text: string, meta: Meta = {}): Message => ({
  role: "tool",
  tool_call_id: callId,
  name: "read_file",
  content: text,
  metadata: { id, ...meta },
});

/** Anthropic style: tool_use blocks. */
export const use = (id: string, useIds: string[], meta: Meta = {}): Message => ({
  role: "assistant",
  content: useIds.map((u): ContentBlock => ({ type: "tool_use", id: u, name: "read_file", input: { path: `${u}.ts` } })),
  metadata: { id, ...meta },
});

/** Anthropic style: a user message of tool_result blocks, optionally followed by text. */
export const results = (id: string, answers: [string, string][], text?: string, meta: Meta = {}): Message => ({
  role: "user",
  content: [
    ...answers.map(([u, out]): ContentBlock => ({ type: "tool_result", tool_use_id: u, content: out })),
    ...(text === undefined ? [] : [{ type: "text" as const, text }]),
  ],
  metadata: { id, ...meta },
});

/** `n` characters of varied text. */
export const chars = (n: number, seed = "x"): string => {
  const base = `${seed} lorem ipsum dolor sit amet, consectetur adipiscing elit; `;
  return base.repeat(Math.ceil(n / base.length) + 1).slice(0, n);
};

/** A conversation of `turns` user/assistant pairs, each message about `size` characters. */
export function conversation(turns: number, size = 200, prefix = "t"): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < turns; i++) {
    out.push(user(`${prefix}${i}u`, chars(size, `question ${i}`)));
    out.push(assistant(`${prefix}${i}a`, chars(size, `answer ${i}`)));
  }
  return out;
}

export const ids = (messages: readonly Message[]): (string | undefined)[] => messages.map((m) => m.metadata?.id as string | undefined);
