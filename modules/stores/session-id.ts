import { createError } from "@amplifier-ts/contracts";

/**
 * Session ids become file names (JSONL), key suffixes (Redis) and row keys (PostgreSQL), so every
 * store accepts the same small alphabet. The rules keep an id from ever naming a path outside the
 * store's folder or a hidden file:
 *
 * | rule | why |
 * |---|---|
 * | 1-128 characters | fits every file system's name limit with room for `.jsonl`/`.lock` suffixes |
 * | only `[A-Za-z0-9._-]` | no separators (`/`, `\`), no NUL, no spaces or shell metacharacters |
 * | no leading dot | no hidden files, no `.` or `..` |
 * | no `..` anywhere | nothing that reads like a parent reference, whatever a later layer does with it |
 *
 * Ids differing only in case are different sessions; on case-insensitive file systems (macOS,
 * Windows) the JSONL store would map them to one file, so pick one case per application.
 */
export const SESSION_ID_PATTERN = /^(?!\.)(?!.*\.\.)[A-Za-z0-9._-]{1,128}$/;

export const MAX_SESSION_ID_LENGTH = 128;

const EXPECTED = "1-128 characters of [A-Za-z0-9._-], not starting with a dot, without '..'";

export function isValidSessionId(value: unknown): value is string {
  return typeof value === "string" && SESSION_ID_PATTERN.test(value);
}

/** Throws INVALID_SESSION_ID naming the broken rule; returns the id otherwise. */
export function assertSessionId(value: unknown, module = "stores"): string {
  if (isValidSessionId(value)) return value;
  throw createError("INVALID_SESSION_ID", `Invalid session id: ${brokenRule(value)}`, {
    module,
    path: "sessionId",
    expected: EXPECTED,
    given: value,
  });
}

function brokenRule(value: unknown): string {
  if (typeof value !== "string") return `a session id is a string, not ${value === null ? "null" : typeof value}`;
  if (value.length === 0) return "it is empty";
  if (value.length > MAX_SESSION_ID_LENGTH) return `it is ${value.length} characters long (at most ${MAX_SESSION_ID_LENGTH})`;
  if (value.startsWith(".")) return "it starts with a dot";
  if (value.includes("..")) return "it contains '..'";
  const bad = [...value].find((ch) => !/[A-Za-z0-9._-]/.test(ch)) ?? "";
  const shown = bad === "/" || bad === "\\" ? `a path separator ${JSON.stringify(bad)}` : `the character ${JSON.stringify(bad)}`;
  return `it contains ${shown}`;
}
