import type { HistoryStore } from "@amplifier-ts/contracts";
import { hasSessionAttachments } from "@amplifier-ts/contracts";
import { JsonlStore } from "@amplifier-ts/stores";

/**
 * One attachment of the mounted session (SessionAttachments, contracts/history-store.ts): what
 * context-persistent keeps beside the history in the session's own store — the carried token
 * counts and the token calibration — so a resume in a new process finds them whatever the store
 * (JSONL files `<sessionId>.<name>.json`, a PostgreSQL table, a Redis hash).
 */
export interface SessionAttachment {
  /** How messages name it: the file for the JSONL store, else the store, session and name. */
  readonly where: string;
  read(): Promise<string | undefined>;
  write(text: string): Promise<void>;
}

/** The attachment `name` of the agent's session, or undefined when the store keeps none (or there is no store: memory fallback). */
export function sessionAttachment(store: HistoryStore | undefined, sessionId: string, agentId: string, name: string, label: string): SessionAttachment | undefined {
  if (!store || !hasSessionAttachments(store)) return undefined;
  const scope = { agentId };
  return {
    where: store instanceof JsonlStore ? `${label} file ${store.attachmentPath(sessionId, name, scope)}` : `${label} (attachment "${name}" of session "${sessionId}" in the ${store.kind} store)`,
    read: () => store.readAttachment(sessionId, name, scope),
    write: (text) => store.writeAttachment(sessionId, name, text, scope),
  };
}

/** A failure's short form for a reason: the system's code when there is one, else the message. */
export function failureText(error: unknown): string {
  const errno = (error as { details?: { errno?: unknown } } | null)?.details?.errno;
  if (typeof errno === "string") return errno;
  return error instanceof Error ? error.message : String(error);
}
