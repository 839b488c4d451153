import type { Message, Role } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";

/**
 * How every built-in store turns a message into its stored form and back: one line of JSON.
 *
 * A store is not the validator (the context manager validates messages against the schema before
 * they get here); it checks only what it needs to store a message faithfully and refuses, with
 * INVALID_MESSAGE, what it must never keep:
 * - not a plain object, or a role outside the five roles;
 * - `metadata.ephemeral: true` — ephemeral messages are never persisted. The context manager never
 *   sends them; a store refusing them turns a caller's bug into an error instead of a leak;
 * - values JSON cannot hold (BigInt, cycles).
 *
 * `JSON.stringify` escapes line feeds inside strings and, since ES2019, lone surrogates, so a
 * record never contains a raw `\n` and every string (NUL, U+2028, unpaired surrogates included)
 * round-trips exactly through UTF-8.
 */
const ROLES: Record<Role, 1> = { system: 1, developer: 1, user: 1, assistant: 1, tool: 1 };

export interface EncodedMessage {
  json: string;
  runId: string | undefined;
}

/** `path` names the argument in errors: "message", "messages[3]". */
export function encodeMessage(message: unknown, path: string, module: string): EncodedMessage {
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    throw invalid(module, path, "a message object", message, "not a message object");
  }
  const role = (message as { role?: unknown }).role;
  if (typeof role !== "string" || !(role in ROLES)) {
    throw invalid(module, `${path}.role`, "one of system, developer, user, assistant, tool", role, "unknown role");
  }
  const metadata = (message as { metadata?: unknown }).metadata;
  if (metadata !== undefined && (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))) {
    throw invalid(module, `${path}.metadata`, "an object", metadata, "metadata is not an object");
  }
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
  return { json, runId: typeof meta?.runId === "string" ? meta.runId : undefined };
}

/** Encodes a whole list first, so one bad message means nothing is written. */
export function encodeMessages(messages: unknown, path: string, module: string): EncodedMessage[] {
  if (!Array.isArray(messages)) {
    throw createError("INVALID_ARGUMENT", `${path} must be an array of messages`, { module, path, expected: "an array of messages", given: messages });
  }
  return messages.map((m, i) => encodeMessage(m, `${path}[${i}]`, module));
}

export type DecodedRecord = { ok: true; message: Message; runId: string | undefined } | { ok: false; reason: string };

/** Parses one stored record; a record that is not a message is reported, not thrown. */
export function decodeRecord(text: string): DecodedRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not JSON (${(error as Error).message})` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, reason: "not a JSON object" };
  const role = (value as { role?: unknown }).role;
  if (typeof role !== "string" || !(role in ROLES)) return { ok: false, reason: "no valid role" };
  const runId = (value as { metadata?: { runId?: unknown } }).metadata?.runId;
  return { ok: true, message: value as Message, runId: typeof runId === "string" ? runId : undefined };
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
