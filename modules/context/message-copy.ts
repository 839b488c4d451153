import type { Message } from "../../contracts/generated/message.js";

/**
 * Copy semantics of the context modules (documented in contracts/CONTEXT.md):
 * - a message is deep-copied once when it is stored, then deep-frozen;
 * - reads (getMessages, windows) return a new array of shallow copies: the top-level object and
 *   its metadata are fresh, nested content (blocks, tool_calls) is the frozen stored value.
 * So a caller may reassign any field of what it gets back, and can never change the stored
 * history by mutating nested values (that throws in strict-mode code) — without paying for a
 * deep clone of the whole window on every model call.
 */
export function freezeDeep<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) freezeDeep((value as Record<string, unknown>)[key]);
  }
  return value;
}

export function shallowCopy(message: Message): Message {
  const copy = { ...message };
  if (message.metadata) copy.metadata = { ...message.metadata };
  return copy;
}
