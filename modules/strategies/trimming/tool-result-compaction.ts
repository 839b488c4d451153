/**
 * `tool-result-compaction` {maxChars = 500}: shortens every non-error tool result longer than
 * maxChars to its head and tail, with the house truncation marker `[… N chars truncated …]` in
 * between (the same marker the window assembler uses, so one pattern finds every cut). Lossless
 * for short results: a message with nothing to shorten is returned as the SAME object.
 *
 * | message                                  | shortened part                                   |
 * |------------------------------------------|--------------------------------------------------|
 * | `tool` message (OpenAI)                  | its content (text blocks joined by "\n")         |
 * | user message with `tool_result` blocks   | each block's content, except `is_error: true`    |
 * | critical message (`metadata.critical`)   | nothing: never altered                           |
 * | orphan result (no call before it)        | nothing: the window drops it anyway              |
 *
 * A shortened copy is marked `metadata.window.truncated = { chars, keptChars, parts }` and cached
 * per input object, so the same stored message gives the same copy in every window (stable
 * prefix, counted once). Images inside a shortened result go with the cut text.
 */
import { z } from "zod";
import type { CompactionContext, CompactionStrategy } from "@amplifier-ts/contracts";
import type { Message, ToolResultBlock } from "@amplifier-ts/contracts";
import { isCritical, isToolResultBlock } from "@amplifier-ts/window";
import { joinText } from "@amplifier-ts/window";
import { truncationMarker } from "@amplifier-ts/window";
import { freezeCreated, withMark } from "@amplifier-ts/window";
import { messageId, SplitInput, type HistoryUnits } from "../history-units.js";
import { ArraySource, MessageLog, type IncrementalStrategy, type LogStep, type MessageSource } from "../message-log.js";
import { defineStrategy } from "@amplifier-ts/contracts";

export const toolResultCompactionOptions = z.object({ maxChars: z.number().int().positive().default(500) }).strict();
export type ToolResultCompactionOptions = z.output<typeof toolResultCompactionOptions>;

export class ToolResultCompaction implements CompactionStrategy, IncrementalStrategy {
  readonly name = "tool-result-compaction";
  /** The split of the input, grown with it (SplitInput): O(new messages) per request. */
  readonly #input = new SplitInput();
  readonly #arrays = new ArraySource();
  /** input message → its copy, and the paired result ids the copy was made for. */
  readonly #copies = new WeakMap<Message, { copy: Message; paired: string }>();
  /** Output position i holds input position i (shortened or not): a result's pairing is fixed when it is stored. */
  readonly #out = new MessageLog();
  /** Positions whose output is a shortened copy, ascending. */
  readonly #shortened: number[] = [];

  constructor(readonly options: ToolResultCompactionOptions) {}

  compact(messages: readonly Message[], context: CompactionContext): Message[] {
    return this.compactLog(this.#arrays.set(messages), context).output.items.slice();
  }

  resetLog(): void {
    this.#input.reset();
  }

  compactLog(input: MessageSource, context: CompactionContext): LogStep {
    const { units, from } = this.#input.sync(input, context.explain.enabled);
    const out = this.#out;
    out.truncate(from);
    const shortened = this.#shortened;
    while (shortened.length > 0 && shortened[shortened.length - 1]! >= from) shortened.pop();
    const messages = units.messages;
    for (let i = from; i < messages.length; i++) {
      const message = messages[i]!;
      const copy = this.#compactAt(units, message, i, context);
      if (copy !== message) shortened.push(i);
      out.append(copy);
    }
    return { output: out, changed: shortened.length > 0 };
  }

  #compactAt(units: HistoryUnits, message: Message, i: number, { explain }: CompactionContext): Message {
    const u = units.unitOf[i]!;
    if (u < 0 || units.units[u]!.kind !== "group") return message;
    const member = units.units[u]!.members.find((m) => m.stored === i);
    if (!member?.result) return message;
    const short = this.shorten(message, pairedIds(member.message));
    if (short !== message && explain.enabled) {
      const mark = short.metadata?.window as { truncated?: { chars: number; keptChars: number } } | undefined;
      explain.record(messageId(message, i), "truncated", this.name, `tool output of ${mark?.truncated?.chars ?? "?"} chars cut to ${this.options.maxChars} (head and tail kept)`);
    }
    return short;
  }

  /** The message with its long non-error results answering `paired` call ids shortened, or the message itself. */
  shorten(message: Message, paired: readonly string[]): Message {
    if (isCritical(message)) return message;
    const key = paired.join("\u0000");
    const cached = this.#copies.get(message);
    if (cached?.paired === key) return cached.copy;
    const copy = this.#shorten(message, new Set(paired));
    if (copy !== message) this.#copies.set(message, { copy, paired: key });
    return copy;
  }

  #shorten(message: Message, paired: ReadonlySet<string>): Message {
    const { maxChars } = this.options;
    if (message.role === "tool") {
      const text = joinText(message.content);
      if (text.length <= maxChars) return message;
      return mark({ ...message, content: cut(text, maxChars) }, text.length, maxChars, 1, []);
    }
    if (message.role !== "user" || !Array.isArray(message.content)) return message;
    let content: Message["content"] | undefined;
    let chars = 0;
    let parts = 0;
    const created: object[] = [];
    message.content.forEach((block, i) => {
      if (!isToolResultBlock(block) || block.is_error === true || !paired.has(block.tool_use_id)) return;
      const text = joinText(block.content ?? "");
      if (text.length <= maxChars) return;
      content ??= [...(message.content as unknown[])] as Message["content"];
      const shortened: ToolResultBlock = { ...block, content: cut(text, maxChars) };
      (content as ToolResultBlock[])[i] = shortened;
      created.push(shortened);
      chars += text.length;
      parts++;
    });
    if (content === undefined) return message;
    created.push(content as object);
    return mark({ ...message, content }, chars, maxChars * parts, parts, created);
  }
}

/** The call ids a (paired, orphan-stripped) result carrier answers. */
function pairedIds(message: Message): string[] {
  if (message.role === "tool") return typeof message.tool_call_id === "string" ? [message.tool_call_id] : [];
  if (!Array.isArray(message.content)) return [];
  return message.content.filter(isToolResultBlock).map((b) => b.tool_use_id);
}

/** Head (the odd character) and tail of `text`, maxChars in all, with the marker between. */
export function cut(text: string, maxChars: number): string {
  const head = Math.ceil(maxChars / 2);
  const tail = maxChars - head;
  return text.slice(0, head) + truncationMarker(text.length - maxChars) + (tail > 0 ? text.slice(text.length - tail) : "");
}

function mark(copy: Message, chars: number, keptChars: number, parts: number, created: object[]): Message {
  return freezeCreated(withMark(copy, { truncated: { chars, keptChars, parts } }), created);
}

export const toolResultCompactionStrategy = defineStrategy({
  name: "tool-result-compaction",
  description: "shorten non-error tool results to maxChars (head + tail + marker); lossless for short ones",
  optionsSchema: toolResultCompactionOptions,
  create: (options) => new ToolResultCompaction(options),
});
