/**
 * LangChain.js messages (`BaseMessage[]`), read by duck typing (fromLangChainMessage of
 * @amplifier-ts/adapters; window imports no LangChain package). One message, one stored message.
 *
 * New messages are built with the constructor of a message of the same type in the input
 * (`item.constructor`), so they are real HumanMessage / ToolMessage instances of the caller's own
 * @langchain/core: a truncated ToolMessage keeps its id, name, tool_call_id, status, artifact and
 * kwargs, with the truncated text as content. When the input holds no message of that type (a
 * synthetic ToolMessage for an interrupted call in a history without any), the new message is a
 * message-like plain object (`{ role: "tool", tool_call_id, name, content }`,
 * `{ role: "user", content }`) that LangChain's chat models coerce (coerceMessageLikeToMessage).
 */
import { fromLangChainMessage, langChainTypeOf, toLangChainMessage, type LangChainMessageLike } from "@amplifier-ts/adapters";
import type { Message } from "@amplifier-ts/contracts";
import { cachedRead, type FormatCodec, type Group, type ReadGroup, type SentPart } from "./fit-codec.js";

type MessageClass = new (fields: Record<string, unknown>) => unknown;

const TYPE_OF_ROLE: Record<Message["role"], string> = { system: "system", developer: "developer", user: "human", assistant: "ai", tool: "tool" };
/** The constructor fields a message carries besides its content (BaseMessageFields, ToolMessageFields, AIMessageFields). */
const FIELDS = ["id", "name", "additional_kwargs", "response_metadata", "tool_call_id", "status", "artifact", "metadata", "tool_calls", "invalid_tool_calls", "usage_metadata"] as const;

/** Each item's messages, by identity, shared by every fitter (fit-codec.ts, cachedRead): the same objects convert to the same messages, whose token counts are cached. */
const cache = new WeakMap<object, readonly Message[]>();

export function langChainCodec(): FormatCodec {
  const names = new Map<string, string>();
  const classes = new Map<string, MessageClass>();
  let generation = 0;
  return {
    format: "langchain",
    get generation() {
      return generation;
    },
    read(items, index): ReadGroup {
      const item = items[index] as LangChainMessageLike;
      const type = langChainTypeOf(item);
      if (type !== undefined && !classes.has(type) && typeof (item as { constructor?: unknown }).constructor === "function") {
        classes.set(type, (item as unknown as { constructor: MessageClass }).constructor);
        generation++;
      }
      let messages = cachedRead(cache, items, index, (i) => [fromLangChainMessage(i as LangChainMessageLike, index, names)]);
      const message = messages[0]!;
      // A ToolMessage without a name takes its call's (as a whole-array conversion names it).
      if (message.role === "tool" && message.name === undefined && names.has(message.tool_call_id!)) {
        messages = [{ ...message, name: names.get(message.tool_call_id!)! }];
        cache.set(item as object, messages);
      }
      for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
      return { count: 1, messages };
    },
    rewrite(items, group: Group, sent: readonly SentPart[]) {
      const item = items[group.first] as Record<string, unknown>;
      const content = toLangChainMessage(sent[0]!.message).content;
      const fields: Record<string, unknown> = { content };
      for (const key of FIELDS) if (item[key] !== undefined) fields[key] = item[key];
      const Class = (item as { constructor?: MessageClass }).constructor;
      return [typeof Class === "function" && Class !== Object ? new Class(fields) : { ...item, content }];
    },
    create(message) {
      const fields = toLangChainMessage(message);
      const Class = classes.get(TYPE_OF_ROLE[message.role]);
      if (!Class) return [fields];
      const { role: _role, ...rest } = fields;
      return [new Class(rest)];
    },
  };
}
