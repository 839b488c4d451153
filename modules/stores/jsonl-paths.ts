import { join } from "node:path";
import { DEFAULT_AGENT_ID } from "@amplifier-ts/contracts";

/** Where one session of the JSONL store lives. */
export interface JsonlSessionPaths {
  /** The agent's folder: the session file, its lock and its sidecars sit in it. */
  readonly dir: string;
  /** `<dir>/<session>.jsonl`: the history, one message per line. */
  readonly file: string;
  /** `<dir>/<session>.lock`: the single writer's lock (file-lock.ts). */
  readonly lock: string;
}

/** The folder under storagePath that holds one folder per agent other than the default one. */
export const JSONL_AGENTS_FOLDER = "agents";

/**
 * Every path of the JSONL store is computed here (a sidecar beside a session file — the
 * calibration, an index — takes `dir` from jsonlSessionPaths):
 *
 * | agent | folder | session file |
 * |---|---|---|
 * | the default agent | `<storagePath>` | `<storagePath>/<session>.jsonl` |
 * | any other agent | `<storagePath>/agents/<agent>` | `<storagePath>/agents/<agent>/<session>.jsonl` |
 *
 * A session's attachment `<name>` (SessionAttachments) is `<dir>/<session>.<name>.json` — the
 * names context-persistent's sidecars had before stores kept attachments (`<session>.counts.json`,
 * `<session>.calibration.json`), so existing sessions keep them. Attachment names hold no dot, so
 * the name is what follows the last-but-one dot: no two (session, name) pairs share a file, and no
 * attachment is a session file (`.json`, never `.jsonl`).
 *
 * The default agent's folder is the store's folder itself, so session files written before the
 * store knew agents are the default agent's where they lie: nothing is moved, no migration step
 * runs, and an older version reading the folder still finds them. Agent ids are checked
 * (agent-id.ts) before they get here: no separator, no leading dot, no `..`.
 */
export function jsonlAgentFolder(storagePath: string, agentId: string): string {
  return agentId === DEFAULT_AGENT_ID ? storagePath : join(storagePath, JSONL_AGENTS_FOLDER, agentId);
}

export function jsonlSessionPaths(storagePath: string, agentId: string, sessionId: string): JsonlSessionPaths {
  const dir = jsonlAgentFolder(storagePath, agentId);
  return { dir, file: join(dir, `${sessionId}.jsonl`), lock: join(dir, `${sessionId}.lock`) };
}

/** `<agent folder>/<session>.<name>.json`: a session's attachment (names checked by attachment-arguments.ts). */
export function jsonlAttachmentPath(storagePath: string, agentId: string, sessionId: string, name: string): string {
  return join(jsonlAgentFolder(storagePath, agentId), `${sessionId}.${name}.json`);
}
