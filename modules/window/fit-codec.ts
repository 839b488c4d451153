/**
 * How fitWindow reads a framework's messages and writes a window back in the same shape.
 *
 * A codec reads the caller's items in GROUPS: a run of items that becomes one or more stored
 * messages (most formats: one item → one message; an AI SDK `tool` message with N results → N tool
 * messages; a Responses assistant turn of reasoning, message and function_call items → one
 * assistant message). Writing back:
 *
 * | the window holds, of a group                      | written                                              |
 * |---------------------------------------------------|------------------------------------------------------|
 * | every message, unchanged                          | the caller's items themselves (the same objects)     |
 * | some messages, or changed ones (truncated results, orphan results removed) | `rewrite`: new items copied from the caller's (ids, providerOptions and other fields kept), only the changed parts replaced |
 * | a message the engine or a strategy made (placeholder, synthetic interrupted result, a summary) | `create`: a new item in the format |
 */
import { adapterErrors } from "@amplifier-ts/adapters";
import { isAmplifierError, type Message } from "@amplifier-ts/contracts";
import type { WindowFormat } from "./fit-formats.js";

export interface ReadGroup {
  /** Items the group takes, from the one read. */
  readonly count: number;
  readonly messages: readonly Message[];
  /** Items appended after it may belong to it (a Responses assistant turn): re-read when the array grows. */
  readonly open?: boolean;
}

/** A group as the fitter keeps it. */
export interface Group extends ReadGroup {
  /** Index of its first item in the caller's array. */
  readonly first: number;
  /** Index of its first message in the converted history. */
  readonly start: number;
}

/** A window message that comes from a group: which of the group's messages, and what the window sends for it. */
export interface SentPart {
  readonly part: number;
  readonly message: Message;
  /** The window sends the stored message unchanged. */
  readonly same: boolean;
}

export interface FormatCodec {
  readonly format: WindowFormat;
  /** The group that starts at `items[index]`. */
  read(items: readonly unknown[], index: number): ReadGroup;
  /** New items for a group the window holds only in part, or changed (see the table above). */
  rewrite(items: readonly unknown[], group: Group, sent: readonly SentPart[]): unknown[];
  /** Items for a message the engine or a strategy made. */
  create(message: Message): unknown[];
  /**
   * Changes when create() would build a different item for the same message than before (the
   * LangChain codec learned a message class from a new item): the fitter then writes the window
   * whole instead of reusing the items it made earlier, so an incremental write equals a whole one.
   */
  readonly generation?: number;
  /**
   * One item for two written next to each other that the API wants as one (Anthropic: two user
   * messages — a made-up result beside the caller's results or prompt); undefined to keep both.
   */
  merge?(previous: unknown, next: unknown): unknown;
}

/** An adapter error raised on a one-item slice, re-pointed at the item's index in the caller's array. */
export function relocated(error: unknown, index: number): unknown {
  if (!isAmplifierError(error) || !adapterErrors.is(error)) return error;
  const details = error.details as Record<string, unknown>;
  const path = typeof details.path === "string" ? details.path.replace(/^(messages|input)\[0\]/, `messages[${index}]`) : `messages[${index}]`;
  const code = error.code.slice("ADAPTER/".length) as keyof typeof adapterErrors.codes;
  return adapterErrors.create(code, error.message.replace(/(messages|input)\[0\]/, `messages[${index}]`), { ...details, index, path });
}

/** Reads one item with `read`, relocating adapter errors and caching by the item's identity. */
export function cachedRead(cache: WeakMap<object, readonly Message[]>, items: readonly unknown[], index: number, read: (item: unknown) => readonly Message[]): readonly Message[] {
  const item = items[index] as object;
  const hit = cache.get(item);
  if (hit) return hit;
  let messages: readonly Message[];
  try {
    messages = read(item);
  } catch (error) {
    throw relocated(error, index);
  }
  cache.set(item, messages);
  return messages;
}

/** The text of a window message's content (a truncated part is a string; blocks are joined). */
export function textOfContent(content: Message["content"]): string {
  if (typeof content === "string") return content;
  if (content === null) return "";
  return content.map((b) => (b.type === "text" ? b.text : "")).join("");
}
