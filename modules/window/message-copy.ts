import type { Message } from "@amplifier-ts/contracts";
import { messageBody } from "@amplifier-ts/contracts";

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
  // A lazily loaded message is copied from the plain object behind it (contracts messageBody).
  const source = messageBody(message);
  freezeNested(source);
  const copy = { ...source };
  if (source.metadata) copy.metadata = { ...source.metadata };
  return copy;
}

/**
 * What a window hands out for a message (`assemble({ handOut: "frozen" })`): its plain object
 * (contracts messageBody: the body behind a lazily loaded or held message), deep-frozen. The first
 * time an object is handed out it is walked whole — a strategy's message may be frozen on top
 * with mutable parts inside — and remembered; from then on it costs one WeakSet look-up.
 */
export function frozenBody(message: Message): Message {
  const body = messageBody(message);
  if (!HANDED_OUT.has(body)) {
    freezeAll(body);
    HANDED_OUT.add(body);
  }
  return body;
}

/** Objects frozenBody walked and froze whole (weak: a packed body or a dropped copy goes with its message). */
const HANDED_OUT = new WeakSet<object>();

/** Freezes `value` and everything inside it, frozen or not on the way (unlike freezeDeep, which stops at a frozen object). */
function freezeAll(value: unknown): void {
  if (value === null || typeof value !== "object") return;
  Object.freeze(value);
  for (const key of Object.keys(value)) freezeAll((value as Record<string, unknown>)[key]);
}

/**
 * Deep-freezes the values of a message's fields, not the message object itself. Messages loaded
 * from a store at resume are not frozen up front (100k messages would cost a visible share of the
 * resume); their nested values are frozen here, the first time they are exposed in a window or by
 * getMessages — cheap afterwards, since a frozen value is skipped in O(1).
 */
export function freezeNested(message: Message): Message {
  const source = messageBody(message);
  for (const key of Object.keys(source)) freezeDeep((source as unknown as Record<string, unknown>)[key]);
  return message;
}
