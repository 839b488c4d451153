/**
 * The message vocabulary (shape rules, the content walker) lives in @amplifier-ts/contracts
 * (contracts/messages/) so every package reads a message the same way; the window's files import
 * it from here. `shallowCopy` is the window's own: a copy for a window, without freezing.
 */
import type { Message } from "@amplifier-ts/contracts";
import { messageBody } from "@amplifier-ts/contracts";

export { callsOf, hasTurnContent, idOf, isCritical, isEphemeral, isInstruction, isResultCarrier, isToolResultBlock, isTurnNote, resultIdsOf } from "@amplifier-ts/contracts";
export type { CallRef, ToolStyle } from "@amplifier-ts/contracts";

/** A fresh top-level object and metadata; nested content is shared (stored messages are frozen). */
export function shallowCopy(message: Message): Message {
  // A lazily loaded message is copied from the plain object behind it (contracts messageBody).
  const source = messageBody(message);
  const copy = { ...source };
  if (source.metadata) copy.metadata = { ...source.metadata };
  return copy;
}
