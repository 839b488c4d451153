/**
 * What a message is, read from its shape alone — the vocabulary the window engine, strategies,
 * search and summarizers share (contracts/CONTEXT.md states the invariants in these words).
 *
 * | shape                                                        | meaning                  |
 * |--------------------------------------------------------------|--------------------------|
 * | role `system` or `developer`                                 | instruction: kept, first |
 * | role `system` or `developer` with `metadata.scope: "turn"`   | note: conversation of its turn (a hook's injection after the session started) |
 * | `metadata.critical: true`                                    | critical: kept verbatim  |
 * | `metadata.ephemeral: true`                                   | ephemeral: never stored  |
 * | assistant with `tool_calls[]` and/or `tool_use` blocks        | tool call(s)             |
 * | role `tool` with `tool_call_id`                              | one tool result (OpenAI) |
 * | user with `tool_result` blocks                               | tool result(s) (Anthropic) |
 * | user with any content besides `tool_result` blocks            | turn content             |
 *
 * A user message whose content is only `tool_result` blocks is not a turn start: it cannot open
 * a window, because its results need the call before them.
 */
import type { ContentBlock, Message, ToolResultBlock } from "../generated/index.js";
import { forEachContentPart } from "./message-content.js";
import { knownFacts, type CallRef, type MessageFacts } from "./message-facts.js";

export type { CallRef } from "./message-facts.js";

/**
 * system and developer messages that are not turn notes: kept in every window, first, in stored
 * order.
 */
export function isInstruction(message: Message): boolean {
  const facts = knownFacts(message);
  if (facts) return (facts.role === "system" || facts.role === "developer") && !facts.note;
  return (message.role === "system" || message.role === "developer") && message.metadata?.scope !== "turn";
}

/**
 * A turn NOTE: a system/developer message marked `metadata.scope: "turn"` (the coordinator marks a
 * hook's stored injection made after the session started). It is conversation, not an
 * instruction: it belongs to its turn — sent in stored order, counted and cut with that turn.
 */
export function isTurnNote(message: Message): boolean {
  const facts = knownFacts(message);
  if (facts) return (facts.role === "system" || facts.role === "developer") && facts.note;
  return (message.role === "system" || message.role === "developer") && message.metadata?.scope === "turn";
}

export function isCritical(message: Message): boolean {
  const facts = knownFacts(message);
  if (facts) return facts.critical;
  return message.metadata?.critical === true;
}

/** Sent with the next request only; context modules never write it to a store. */
export function isEphemeral(message: Message): boolean {
  // Facts describe stored messages, and a store never keeps an ephemeral one.
  if (knownFacts(message)) return false;
  return message.metadata?.ephemeral === true;
}

/** The tool calls an assistant message makes, in order (OpenAI tool_calls, then tool_use blocks). */
export function callsOf(message: Message): CallRef[] {
  const facts = knownFacts(message);
  if (facts) return [...facts.calls];
  if (message.role !== "assistant") return [];
  const openai: CallRef[] = [];
  const anthropic: CallRef[] = [];
  forEachContentPart(message, {
    toolCall(call) {
      if (typeof call.id !== "string") return;
      if (call.style === "openai") openai.push({ id: call.id, name: call.name ?? "tool", style: "openai" });
      else anthropic.push({ id: call.id, name: call.name, style: "anthropic" });
    },
  });
  return anthropic.length ? [...openai, ...anthropic] : openai;
}

/** The call ids a message answers: a tool message's tool_call_id, or a user message's tool_result blocks. */
export function resultIdsOf(message: Message): string[] {
  const facts = knownFacts(message);
  if (facts) return [...facts.resultIds];
  if (message.role === "tool") return typeof message.tool_call_id === "string" ? [message.tool_call_id] : [];
  if (message.role !== "user" || !Array.isArray(message.content)) return [];
  const ids: string[] = [];
  forEachContentPart(message, {
    toolResult(block) {
      if (isToolResultBlock(block)) ids.push(block.tool_use_id);
    },
  });
  return ids;
}

/** A message that carries tool results (and so must sit right after its call). */
export function isResultCarrier(message: Message): boolean {
  return resultIdsOf(message).length > 0 || message.role === "tool";
}

/** A user message with some content that is not a tool_result block: it can start a window. */
export function hasTurnContent(message: Message): boolean {
  const facts = knownFacts(message);
  if (facts) return facts.turnContent;
  if (message.role !== "user") return false;
  if (!Array.isArray(message.content)) return true;
  return message.content.some((block) => !isToolResultBlock(block));
}

export function isToolResultBlock(block: ContentBlock | undefined): block is ToolResultBlock {
  return block?.type === "tool_result" && typeof (block as ToolResultBlock).tool_use_id === "string";
}

export function idOf(message: Message): string | undefined {
  const facts = knownFacts(message);
  if (facts) return facts.id;
  const id = message.metadata?.id;
  return typeof id === "string" ? id : undefined;
}

/** The facts of a plain message (message-facts.ts): what a store keeps beside it for lazy loading. */
export function factsOf(message: Message): MessageFacts {
  const metadata = message.metadata;
  const id = metadata?.id;
  const runId = metadata?.runId;
  return {
    role: message.role,
    note: metadata?.scope === "turn",
    critical: isCritical(message),
    calls: callsOf(message),
    resultIds: resultIdsOf(message),
    turnContent: hasTurnContent(message),
    id: typeof id === "string" ? id : undefined,
    runId: typeof runId === "string" ? runId : undefined,
  };
}
