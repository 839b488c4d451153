import { createHash } from "node:crypto";
import type { AgentInputItem } from "@openai/agents-core";
import type { Message } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import { itemMessage } from "./item-messages.js";
import { MODULE } from "./session-errors.js";

/**
 * How an item is kept in a HistoryStore: one Message per item — readable by every amplifier-ts
 * tool (the item as a Message: role, text, tool calls, results) — with the item itself, exactly
 * as the SDK gave it, under `metadata.agentsItem`. Reading returns that item, so items
 * round-trip exactly (as JSON: `undefined` properties vanish, as in every store).
 *
 * Ids make appends idempotent (contracts/HISTORY-STORES.md): an item's `metadata.id` hashes the
 * id before it and the item's JSON, so a retried `addItems` (same items after the same tail)
 * produces the same ids and the store keeps one copy; the same item added again later (another
 * tail) is a new message.
 */
export const ITEM_KEY = "agentsItem";
export const SOURCE = "openai-agents";

export function storedMessages(items: readonly AgentInputItem[], tailId: string | undefined): Message[] {
  let previous = tailId ?? "";
  const timestamp = new Date().toISOString();
  return items.map((item) => {
    const json = JSON.stringify(item);
    const id = `oa-${createHash("sha256").update(previous).update("\n").update(json).digest("hex").slice(0, 32)}`;
    previous = id;
    const readable = itemMessage(item, id);
    return { ...readable, metadata: { ...readable.metadata, id, timestamp, source: SOURCE, [ITEM_KEY]: JSON.parse(json) as unknown } };
  });
}

/** The item a stored message keeps; a message this session did not write is refused, naming it. */
export function itemOf(message: Message, sessionId: string, index: number): AgentInputItem {
  const item = message.metadata?.[ITEM_KEY];
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    throw createError("INVALID_MESSAGE", `Session "${sessionId}": stored message ${index} holds no AgentInputItem (was it written by another writer than the OpenAI Agents session?)`, {
      module: MODULE,
      path: `messages[${index}].metadata.${ITEM_KEY}`,
      expected: "a message written by AmplifierSession (metadata.agentsItem: the item)",
      given: message.metadata?.id ?? message.role,
    });
  }
  return item as AgentInputItem;
}

export function idOf(message: Message | undefined): string | undefined {
  const id = message?.metadata?.id;
  return typeof id === "string" ? id : undefined;
}
