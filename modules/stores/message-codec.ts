import type { Message, MessageFacts } from "@amplifier-ts/contracts";
import { createError, factsOf, isAmplifierError, validateMessage } from "@amplifier-ts/contracts";

/**
 * How every built-in store turns a message into its stored form and back: one line of JSON.
 *
 * Every message that goes in or comes out is checked against the Message contract
 * (`validateMessage` of @amplifier-ts/contracts), so a store never keeps, and never hands out, a
 * record that would make every later window, search or listing fail:
 *
 * | when | a message that is not a Message |
 * |---|---|
 * | written (append, appendMany, replace) | refused with INVALID_MESSAGE naming the argument (`messages[3].content`); nothing of the call is stored |
 * | loaded by the JSONL store | a corrupt record: skipped and reported (`open().recovered`) with its line and id, like any damaged line |
 * | loaded by the other stores (memory, PostgreSQL, Redis) | INVALID_MESSAGE naming the session, the record's index and id (`decodeStored`) |
 *
 * Besides the contract a store refuses `metadata.ephemeral: true` (ephemeral messages are never
 * persisted; the context manager never sends them, so a store refusing them turns a caller's bug
 * into an error instead of a leak) and values JSON cannot hold (BigInt, cycles).
 *
 * `JSON.stringify` escapes line feeds inside strings and, since ES2019, lone surrogates, so a
 * record never contains a raw `\n` and every string (NUL, U+2028, unpaired surrogates included)
 * round-trips exactly through UTF-8.
 */
export interface EncodedMessage {
  json: string;
  runId: string | undefined;
  /** What a sidecar index keeps of the message (contracts MessageFacts), so a resume need not parse it. */
  facts: MessageFacts;
}

/** `path` names the argument in errors: "message", "messages[3]". */
export function encodeMessage(message: unknown, path: string, module: string): EncodedMessage {
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    throw invalid(module, path, "a message object", message, "not a message object");
  }
  const problem = messageProblem(message, path);
  if (problem !== undefined) throw invalid(module, problem.path, problem.expected, problem.given, `not a valid message${idOf(message)}: ${problem.text}`);
  const metadata = (message as { metadata?: unknown }).metadata;
  const meta = metadata as { ephemeral?: unknown; runId?: unknown } | undefined;
  if (meta?.ephemeral === true) {
    throw invalid(module, `${path}.metadata.ephemeral`, "a persistable message (ephemeral messages are never stored)", true, "ephemeral messages are never persisted");
  }
  let json: string;
  try {
    json = JSON.stringify(message);
  } catch (cause) {
    throw createError("INVALID_MESSAGE", `The message cannot be stored as JSON: ${(cause as Error).message}`, {
      module,
      path,
      expected: "JSON values only (no BigInt, no cycles)",
      cause,
    });
  }
  return { json, runId: typeof meta?.runId === "string" ? meta.runId : undefined, facts: factsOf(message as Message) };
}

/** Encodes a whole list first, so one bad message means nothing is written. */
export function encodeMessages(messages: unknown, path: string, module: string): EncodedMessage[] {
  if (!Array.isArray(messages)) {
    throw createError("INVALID_ARGUMENT", `${path} must be an array of messages`, { module, path, expected: "an array of messages", given: messages });
  }
  return messages.map((m, i) => encodeMessage(m, `${path}[${i}]`, module));
}

export type DecodedRecord = { ok: true; message: Message; runId: string | undefined } | { ok: false; reason: string };

/** Parses one stored record; a record that is not a message is reported (with its id when it has one), not thrown. */
export function decodeRecord(text: string): DecodedRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not JSON (${(error as Error).message})` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, reason: "not a JSON object" };
  const problem = messageProblem(value, "");
  if (problem !== undefined) return { ok: false, reason: `not a valid message${idOf(value)}: ${problem.text}` };
  const runId = (value as { metadata?: { runId?: unknown } }).metadata?.runId;
  return { ok: true, message: value as Message, runId: typeof runId === "string" ? runId : undefined };
}

/**
 * The message a store read back as record `index` of session `sessionId`, or INVALID_MESSAGE
 * naming the session, the index, the message's id and what is wrong — for stores whose records
 * can be written by others (another version, a SQL client, redis-cli) and that have no
 * skip-and-report path of their own.
 */
export function decodeStored(value: unknown, sessionId: string, index: number, module: string): Message {
  const problem = messageProblem(value, "");
  if (problem === undefined) return value as Message;
  const id = (value as { metadata?: { id?: unknown } } | null)?.metadata?.id;
  throw createError("INVALID_MESSAGE", `Stored message ${index} of session "${sessionId}"${idOf(value)} is not a valid message: ${problem.text}`, {
    module,
    path: `${sessionId}[${index}]${problem.path === "" ? "" : `.${problem.path}`}`,
    index,
    sessionId,
    ...(typeof id === "string" ? { messageId: id } : {}),
    expected: problem.expected,
    given: problem.given,
    hint: "the record was written without validation (an earlier version, or another program); fix or delete it: amplifier-ts sessions export / import --replace / delete",
  });
}

/** `decodeStored` of a record's JSON text; text that is not JSON is INVALID_MESSAGE too. */
export function decodeStoredText(text: string, sessionId: string, index: number, module: string): Message {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw createError("INVALID_MESSAGE", `Stored message ${index} of session "${sessionId}" is not JSON: ${(error as Error).message}`, {
      module,
      path: `${sessionId}[${index}]`,
      index,
      sessionId,
      expected: "a message as one JSON text",
      given: preview(text),
    });
  }
  return decodeStored(value, sessionId, index, module);
}

/** Parses a record that this store wrote and indexed; damage here means the file changed under us. */
export function parseStored(text: string, where: string, module: string): Message {
  const decoded = decodeRecord(text);
  if (decoded.ok) return decoded.message;
  throw createError("STORAGE_UNAVAILABLE", `A stored record changed outside the store (${decoded.reason})`, {
    module,
    file: where,
    hint: "another program modified the session while this store held its lock",
  });
}

function invalid(module: string, path: string, expected: string, given: unknown, what: string) {
  return createError("INVALID_MESSAGE", `The store refused a message: ${what}`, { module, path, expected, given });
}

interface MessageProblem {
  /** The bad field, from `path` on (`messages[3].content`; "" for the whole value). */
  path: string;
  expected: string;
  given: unknown;
  /** `content: expected …; given 42`, for messages. */
  text: string;
}

/** What makes `value` no Message, or undefined when it is one. One validator for every store: the contract's. */
function messageProblem(value: unknown, path: string): MessageProblem | undefined {
  try {
    validateMessage(value, path);
    return undefined;
  } catch (error) {
    if (!isAmplifierError(error)) throw error;
    const details = error.details ?? {};
    const at = typeof details.path === "string" ? details.path.replace(/^\./, "") : path;
    const field = at.startsWith(path) ? at.slice(path.length).replace(/^\./, "") : at;
    const expected = String(details.expected ?? "a message matching the Message contract");
    return { path: at, expected, given: details.given, text: `${field === "" ? "" : `${field}: `}expected ${expected}; given ${preview(details.given)}` };
  }
}

function idOf(value: unknown): string {
  const id = (value as { metadata?: { id?: unknown } } | null)?.metadata?.id;
  return typeof id === "string" ? ` (id ${JSON.stringify(id)})` : "";
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? "undefined" : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
