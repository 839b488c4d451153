/**
 * Session date headers: the short messages a chat transcript puts where a new sitting begins —
 * "[Session 3 · Sunday 31 December 2023]", "--- 2024-01-16 ---", "Conversation on 8 May 2023,
 * 1:56 pm". A recalled message says what was said; its header says when, which a question about
 * time ("when did …", "how long ago …") needs and which the message itself rarely holds. Recall
 * brings a hit's header with it (modules/strategies/recall.ts).
 *
 * A header is a user, system or developer message of plain text, at most HEADER_MAX_CHARS long,
 * that names a date (a day and a month, a month and a year, or a numeric date) and holds at most
 * HEADER_MAX_WORDS words besides the date's and a few header words (session, conversation, chat,
 * day, date, part, on, at, of, the, started). Text only, no model; cached per message object.
 */
import type { Message } from "@amplifier-ts/contracts";

export const HEADER_MAX_CHARS = 120;
export const HEADER_MAX_WORDS = 2;

const MONTH = "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
const DATE = new RegExp(
  [
    `\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}\\b`,
    `\\b${MONTH}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?\\b`,
    `\\b${MONTH}\\.?\\s+\\d{4}\\b`,
    "\\b\\d{4}-\\d{2}-\\d{2}\\b",
    "\\b\\d{1,2}[./]\\d{1,2}[./]\\d{2,4}\\b",
  ].join("|"),
  "i",
);
const DATE_WORDS = new RegExp(
  `^(?:${MONTH}|(?:mon|tues|wednes|thurs|fri|satur|sun)day|mon|tue|wed|thu|fri|sat|sun|am|pm|utc|gmt|session|conversation|chat|day|date|part|on|at|of|the|started|st|nd|rd|th)$`,
  "i",
);

const cache = new WeakMap<Message, boolean>();

/** True when `message` is a session date header (see the file comment). */
export function isSessionHeader(message: Message): boolean {
  let known = cache.get(message);
  if (known === undefined) cache.set(message, (known = detect(message)));
  return known;
}

function detect(message: Message): boolean {
  if (message.role !== "user" && message.role !== "system" && message.role !== "developer") return false;
  const text = typeof message.content === "string" ? message.content : Array.isArray(message.content) && message.content.length === 1 && message.content[0]!.type === "text" ? message.content[0]!.text : undefined;
  if (text === undefined || text.length > HEADER_MAX_CHARS || !DATE.test(text)) return false;
  let other = 0;
  for (const word of text.split(/[^\p{L}]+/u)) if (word !== "" && !DATE_WORDS.test(word) && ++other > HEADER_MAX_WORDS) return false;
  return true;
}
