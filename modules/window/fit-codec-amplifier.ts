/**
 * Our own messages (@amplifier-ts/contracts Message): each is checked once (validateMessage) and
 * used as it is. A truncated or repaired message is the engine's window copy (marked in
 * `metadata.window`, window-marks.ts); made-up messages are the engine's.
 */
import { validateMessage, type Message } from "@amplifier-ts/contracts";
import { cachedRead, type FormatCodec, type Group, type ReadGroup, type SentPart } from "./fit-codec.js";

/** Each item's messages, by identity, shared by every fitter (fit-codec.ts, cachedRead): the same objects convert to the same messages, whose token counts are cached. */
const cache = new WeakMap<object, readonly Message[]>();

export function amplifierCodec(): FormatCodec {
  return {
    format: "amplifier",
    read(items, index): ReadGroup {
      return { count: 1, messages: cachedRead(cache, items, index, (item) => [validateMessage(item as Message, `messages[${index}]`)]) };
    },
    rewrite(_items, _group: Group, sent: readonly SentPart[]) {
      return sent.map((s) => s.message);
    },
    create(message) {
      return [message];
    },
  };
}
