/**
 * How a window says what it changed. Every message the assembler creates or alters carries
 * `metadata.window` (metadata is never sent to a provider, so the mark costs no tokens):
 *
 * | mark                                   | message                                               |
 * |----------------------------------------|-------------------------------------------------------|
 * | `synthetic: "interrupted-tool-call"`   | result made up for a call that has none (crash mid-tool) |
 * | `synthetic: "omitted-history"`         | user placeholder put before a kept critical message that is not a user turn |
 * | `truncated: { chars, keptChars, … }`   | a stored message whose text was cut (head and tail kept) |
 * | `repaired: { orphanResults }`          | a stored user message whose orphan tool_result blocks were removed |
 * | `spilled: { handle, tokens, chars }`   | a stored input too large for the window, sent as an excerpt naming the handle its whole text is stored under (the context manager's spilling) |
 * | `thinkingDropped: { blocks }`          | an assistant message of an older turn sent without its thinking blocks — all of them (thinking policy `drop-older`, window-builder.ts) |
 *
 * Stored messages are never marked: marks exist on window copies only.
 */
import type { Message } from "@amplifier-ts/contracts";
import { freezeDeep } from "./message-copy.js";

export type SyntheticKind = "interrupted-tool-call" | "omitted-history";

export interface TruncationMark {
  /** Characters of text before truncation (all truncated parts of the message). */
  readonly chars: number;
  /** Characters kept (head + tail, marker text excluded). */
  readonly keptChars: number;
  /** Parts cut: tool results, or "prompt" for a user prompt. */
  readonly parts: number;
}

/** A spilled input's excerpt (context-manager spilled-history.ts): where the whole text is, and how large it is. */
export interface SpillMark {
  readonly handle: string;
  /** Tokens and characters of the whole stored text. */
  readonly tokens: number;
  readonly chars: number;
}

export interface WindowMark {
  readonly synthetic?: SyntheticKind;
  readonly spilled?: SpillMark;
  readonly truncated?: TruncationMark;
  readonly repaired?: { readonly orphanResults: number };
  readonly thinkingDropped?: { readonly blocks: number };
}

export const INTERRUPTED_RESULT_TEXT = "[tool call interrupted: no result was recorded]";
export const OMITTED_HISTORY_TEXT = "[earlier conversation omitted]";

/** The window mark of a message, if any. */
export function windowMarkOf(message: Message): WindowMark | undefined {
  const mark = message.metadata?.window;
  return typeof mark === "object" && mark !== null ? (mark as WindowMark) : undefined;
}

/** A copy of `message` whose metadata carries `mark` merged into any mark it already has. */
export function withMark(message: Message, mark: WindowMark): Message {
  const previous = windowMarkOf(message);
  return { ...message, metadata: { ...message.metadata, window: { ...previous, ...mark } } };
}

/**
 * Freezes what the assembler itself creates (the message, its metadata and mark, plus the new
 * content arrays and blocks listed in `created`): such messages are cached and shared by consecutive windows. Objects shared
 * with a stored message are left alone: the assembler never changes what it was given.
 */
export function freezeCreated(message: Message, created: readonly object[] = []): Message {
  for (const part of created) Object.freeze(part);
  if (message.metadata) {
    const mark = message.metadata.window;
    // The mark with its parts (truncated, repaired: small objects): windows hand these messages out frozen whole.
    if (typeof mark === "object" && mark !== null) freezeDeep(mark);
    Object.freeze(message.metadata);
  }
  return Object.freeze(message);
}
