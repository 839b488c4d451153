import { randomUUID } from "node:crypto";
import { DEFAULT_AGENT_ID } from "@amplifier-ts/contracts";

/** The key names one RedisStore uses for one agent. */
export interface RedisKeys {
  /** The agent's session index: a sorted set of session ids. */
  readonly index: string;
  /** A session's messages: a LIST of message JSON. */
  list(sessionId: string): string;
  /** A session's HASH of bytes and updatedAt. */
  meta(sessionId: string): string;
  /** A session's HASH of attachments: name → text (SessionAttachments). */
  attachments(sessionId: string): string;
  /** A session's SET of the message ids its list holds (idempotent appends). */
  ids(sessionId: string): string;
  /** A fresh write id (SET NX) for a write to `sessionId`: a retried append is applied once. In the session's slot (the session is required in cluster mode). */
  writeId(sessionId?: string): string;
}

/**
 * Every key name the Redis store writes is built here and nowhere else.
 *
 * One server (`cluster` false) — the layout from before Redis Cluster support, unchanged, so data
 * written by earlier versions is read as it is:
 *
 * | agent | list | meta | attachments | message ids | index | write id |
 * |---|---|---|---|---|---|---|
 * | the default agent | `<prefix>s:<session>` | `<prefix>m:<session>` | `<prefix>d:<session>` | `<prefix>i:<session>` | `<prefix>index` | `<prefix>w:<uuid>` |
 * | any other agent | `<prefix>a:<agent>:s:<session>` | `<prefix>a:<agent>:m:<session>` | `<prefix>a:<agent>:d:<session>` | `<prefix>a:<agent>:i:<session>` | `<prefix>a:<agent>:index` | `<prefix>w:<uuid>` |
 *
 * Redis Cluster (`cluster` true): a session's keys carry the hash tag `{<agent>:<session>}`, so
 * they share one slot (one primary) and a Lua script may touch them all; the agent's index carries
 * `{<agent>}` — another slot, so no script touches it together with a session's keys:
 *
 * | list | meta | attachments | message ids | write id | index |
 * |---|---|---|---|---|---|
 * | `<prefix>{<agent>:<session>}:s` | `<prefix>{<agent>:<session>}:m` | `<prefix>{<agent>:<session>}:d` | `<prefix>{<agent>:<session>}:i` | `<prefix>{<agent>:<session>}:w:<uuid>` | `<prefix>{<agent>}:index` |
 *
 * Agent and session ids cannot hold ":", "{" or "}" (their alphabet is `[A-Za-z0-9._-]`), so no
 * two (agent, session) pairs share a key or a tag, and the prefix (which may hold braces) is
 * outside the first `{…}` only when it has none: a prefix with "{" is refused in cluster mode
 * (redis-config.ts). Moving data between the layouts: `amplifier-ts sessions export --all --store <from> --to <to>`.
 */
export function redisKeys(prefix: string, agentId: string, cluster = false): RedisKeys {
  if (cluster) {
    const tag = (sessionId: string) => `${prefix}{${agentId}:${sessionId}}:`;
    return {
      index: `${prefix}{${agentId}}:index`,
      list: (sessionId) => `${tag(sessionId)}s`,
      meta: (sessionId) => `${tag(sessionId)}m`,
      attachments: (sessionId) => `${tag(sessionId)}d`,
      ids: (sessionId) => `${tag(sessionId)}i`,
      writeId: (sessionId) => {
        if (sessionId === undefined) throw new TypeError("redisKeys: a cluster write id needs the session id (its slot)");
        return `${tag(sessionId)}w:${randomUUID()}`;
      },
    };
  }
  const base = agentId === DEFAULT_AGENT_ID ? prefix : `${prefix}a:${agentId}:`;
  return {
    index: `${base}index`,
    list: (sessionId) => `${base}s:${sessionId}`,
    meta: (sessionId) => `${base}m:${sessionId}`,
    attachments: (sessionId) => `${base}d:${sessionId}`,
    ids: (sessionId) => `${base}i:${sessionId}`,
    writeId: () => `${prefix}w:${randomUUID()}`,
  };
}
