import { ATTACHMENT_NAME_PATTERN, MAX_ATTACHMENT_BYTES, createError } from "@amplifier-ts/contracts";

/**
 * The checks every store makes on `readAttachment` / `writeAttachment` arguments (SessionAttachments,
 * contracts/history-store.ts), before it touches storage, so all stores refuse the same calls:
 *
 * | argument | accepted | else |
 * |---|---|---|
 * | name | `ATTACHMENT_NAME_PATTERN`: 1-64 characters of `[A-Za-z0-9_-]` — no dot, no separator, so it cannot leave the session's folder or key | INVALID_ARGUMENT, `path: "name"` |
 * | text | a string of at most MAX_ATTACHMENT_BYTES UTF-8 bytes, without NUL (PostgreSQL text cannot hold it) or lone surrogates (UTF-8 cannot: they would come back as U+FFFD) | INVALID_ARGUMENT, `path: "text"` |
 */
export function assertAttachmentName(name: unknown, module: string): string {
  if (typeof name === "string" && ATTACHMENT_NAME_PATTERN.test(name)) return name;
  throw createError("INVALID_ARGUMENT", `Invalid attachment name ${JSON.stringify(name) ?? String(name)}`, {
    module,
    path: "name",
    expected: "1-64 characters of [A-Za-z0-9_-] (no dot, no path separator)",
    given: name,
  });
}

export function assertAttachmentText(text: unknown, module: string): string {
  const fail = (why: string) => createError("INVALID_ARGUMENT", `An attachment's text ${why}`, { module, path: "text", expected: `a string of at most ${MAX_ATTACHMENT_BYTES} UTF-8 bytes, without NUL or lone surrogates`, given: typeof text === "string" ? `${text.slice(0, 40)}…` : text });
  if (typeof text !== "string") throw fail("must be a string");
  if (text.includes("\0")) throw fail("cannot hold NUL (\\u0000)");
  if (LONE_SURROGATE.test(text)) throw fail("cannot hold a lone surrogate");
  if (text.length > MAX_ATTACHMENT_BYTES / 3 && Buffer.byteLength(text) > MAX_ATTACHMENT_BYTES) throw fail(`is over ${MAX_ATTACHMENT_BYTES} bytes`);
  return text;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
