/**
 * Repairs a window makes so the provider accepts it. The stored history is never touched: each
 * function returns a new message (or nothing) and leaves its input as it is.
 *
 * | stored situation                                      | in the window                                  |
 * |-------------------------------------------------------|------------------------------------------------|
 * | a call without a result (crash mid-tool)              | a synthetic result right after the existing results: `[tool call interrupted: no result was recorded]`; OpenAI: one `tool` message per call id; Anthropic: one user message of `tool_result` blocks with `is_error: true` |
 * | a `tool` message whose call is absent or already answered | dropped (an orphan)                        |
 * | a user message with such `tool_result` blocks         | those blocks removed; the message dropped if nothing is left |
 * | a critical message in the first kept position that is not a user turn | a user placeholder `[earlier conversation omitted]` before it |
 */
import type { ContentBlock, Message, ToolResultBlock } from "@amplifier-ts/contracts";
import { idOf, isToolResultBlock, resultIdsOf, type CallRef } from "./message-shape.js";
import { INTERRUPTED_RESULT_TEXT, OMITTED_HISTORY_TEXT, freezeCreated, withMark } from "./window-marks.js";

/** Synthetic results for `missing` calls of `call`, in the calls' style, frozen. */
export function interruptedResults(call: Message, missing: readonly CallRef[]): Message[] {
  const out: Message[] = [];
  const callId = idOf(call) ?? "call";
  for (const ref of missing) {
    if (ref.style !== "openai") continue;
    out.push(
      freezeCreated({
        role: "tool",
        tool_call_id: ref.id,
        name: ref.name,
        content: INTERRUPTED_RESULT_TEXT,
        metadata: { id: `${callId}:interrupted:${ref.id}`, source: "window", window: { synthetic: "interrupted-tool-call" } },
      }),
    );
  }
  const blocks: ToolResultBlock[] = missing
    .filter((ref) => ref.style === "anthropic")
    .map((ref) => ({ type: "tool_result", tool_use_id: ref.id, content: INTERRUPTED_RESULT_TEXT, is_error: true }));
  if (blocks.length > 0) {
    out.push(
      freezeCreated(
        {
          role: "user",
          content: blocks,
          metadata: {
            id: `${callId}:interrupted:${blocks.map((b) => b.tool_use_id).join(",")}`,
            source: "window",
            window: { synthetic: "interrupted-tool-call" },
          },
        },
        [blocks, ...blocks],
      ),
    );
  }
  return out;
}

export interface StrippedMessage {
  /** The message without the dropped blocks; undefined when nothing is left of it. */
  readonly message: Message | undefined;
  /** tool_use_id of each removed block. */
  readonly removed: readonly string[];
}

/**
 * A copy of a user message without the tool_result blocks `keep` rejects, marked `repaired`.
 * Returns the message itself when every block is kept.
 */
export function stripResultBlocks(message: Message, keep: (toolUseId: string) => boolean): StrippedMessage {
  // `keep` is asked once per result block, in block order (resultIdsOf lists them so); when every
  // block is kept the content is never read, so a lazily loaded message stays unparsed.
  const verdicts = message.role === "user" ? resultIdsOf(message).map((id) => keep(id)) : undefined;
  if (verdicts?.every(Boolean)) return { message, removed: [] };
  if (!Array.isArray(message.content)) return { message, removed: [] };
  const kept: ContentBlock[] = [];
  const removed: string[] = [];
  let next = 0;
  for (const block of message.content) {
    if (isToolResultBlock(block) && !(verdicts ? verdicts[next++] : keep(block.tool_use_id))) removed.push(block.tool_use_id);
    else kept.push(block);
  }
  if (removed.length === 0) return { message, removed };
  if (kept.length === 0) return { message: undefined, removed };
  const copy = withMark({ ...message, content: kept }, { repaired: { orphanResults: removed.length } });
  return { message: freezeCreated(copy, [kept]), removed };
}

/** The user placeholder that keeps a window starting with a user message (see the table). */
export function omittedHistoryMessage(): Message {
  return freezeCreated({
    role: "user",
    content: OMITTED_HISTORY_TEXT,
    metadata: { id: "window:omitted-history", source: "window", window: { synthetic: "omitted-history" } },
  });
}
