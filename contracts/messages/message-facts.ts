/**
 * The facts about a message that cut planning needs — its role, whether it is critical or a turn
 * note, the calls it makes, the results it carries, whether it can start a turn, its ids — as a
 * small value that can be stored apart from the message (a session file's sidecar index, a
 * PostgreSQL row's columns) and read back without parsing the message.
 *
 * A message loaded lazily (its body is parsed only when something reads it) carries its facts
 * under the well-known symbol `MESSAGE_FACTS`; the shape helpers (message-shape.ts) answer from
 * them first, so indexing a resumed history never parses a message the window does not show.
 * A plain message has no such property: the helpers read its fields, as always.
 *
 * | field         | the same as (for the message it describes)                       |
 * |---------------|-------------------------------------------------------------------|
 * | `role`        | `message.role`                                                    |
 * | `note`        | `metadata.scope === "turn"`                                       |
 * | `critical`    | `isCritical(message)`                                             |
 * | `calls`       | `callsOf(message)`                                                |
 * | `resultIds`   | `resultIdsOf(message)`                                            |
 * | `turnContent` | `hasTurnContent(message)`                                         |
 * | `id`, `runId` | `metadata.id`, `metadata.runId` when strings                      |
 *
 * Facts are attached only by a store that validated the message when it was written; whoever
 * attaches them guarantees they describe the message exactly (a lazy message checks its role
 * against them when it is parsed).
 */
import type { Message } from "../generated/index.js";
import type { ToolStyle } from "./message-content.js";

export const MESSAGE_FACTS: unique symbol = Symbol.for("amplifier-ts.messageFacts") as never;

/** A tool call a message makes: its id, tool name and the API style it was written in. */
export interface CallRef {
  readonly id: string;
  readonly name: string;
  readonly style: ToolStyle;
}

export interface MessageFacts {
  readonly role: Message["role"];
  readonly note: boolean;
  readonly critical: boolean;
  readonly calls: readonly CallRef[];
  readonly resultIds: readonly string[];
  readonly turnContent: boolean;
  readonly id: string | undefined;
  readonly runId: string | undefined;
}

/**
 * Asked of a lazily loaded message, answers the plain object behind it (parsed first if it was
 * not yet): copies are made from it directly, without going through the lazy wrapper for every
 * field. A plain message has no such property.
 */
export const MESSAGE_BODY: unique symbol = Symbol.for("amplifier-ts.messageBody") as never;

/** The plain object behind `message` when it is lazily loaded (parsed now if needed), else `message` itself. */
export function messageBody(message: Message): Message {
  return (message as { [MESSAGE_BODY]?: Message })[MESSAGE_BODY] ?? message;
}

/** The facts a lazily loaded message carries, or undefined for a plain message. */
export function knownFacts(message: Message): MessageFacts | undefined {
  return (message as { [MESSAGE_FACTS]?: MessageFacts })[MESSAGE_FACTS];
}

/**
 * Asked of a lazily loaded or packed message that is not parsed, answers the length of its stored
 * JSON (bytes of a file, characters of a text): an upper bound of the characters of text it
 * carries, known without parsing it (spilling decides with it which messages can be large).
 */
export const MESSAGE_STORED_SIZE: unique symbol = Symbol.for("amplifier-ts.messageStoredSize") as never;

/** The stored JSON length of an unparsed lazy or packed message; undefined for any other message. */
export function storedSize(message: Message): number | undefined {
  return (message as { [MESSAGE_STORED_SIZE]?: number })[MESSAGE_STORED_SIZE];
}
