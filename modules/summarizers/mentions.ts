/**
 * What a summary of some messages has to carry over (issue 29 §1): the open task and the files and
 * ids they mention most. The summary check of the summarizing strategies tests summaries against
 * it; the extractive summarizer writes it into every summary.
 *
 * | fact     | found as                                                                                 |
 * |----------|------------------------------------------------------------------------------------------|
 * | task     | the newest message marked `metadata.task: true`, else the newest user request: a user message with text of its own (not only tool results), not a summary (`metadata.summary`) |
 * | mentions | file paths (`src/a.ts`, `./x/y.json`), file names with a known extension (`a.ts`), ids (`ABC-123`, `#42`, UUIDs) in the messages' text and tool calls; the most frequent first, up to `limit` (ties: first seen) |
 */
import type { Message } from "@amplifier-ts/contracts";
import { forEachContentPart } from "@amplifier-ts/contracts";
import { messageText } from "./message-text.js";

/**
 * Mentions are looked for token by token: a token is a run of word characters, dots, slashes and
 * dashes (one linear pass), and each token is tested by anchored checks that look at each
 * character a bounded number of times. A single unanchored regular expression over the text (as
 * first written) backtracked quadratically on a long run of word characters with no slash or dot
 * after it (test/search/recall-linear-time.test.ts).
 */
const TOKEN = /[\w./-]+/g;
/** The last path segment: a name, a dot, an extension of a letter and up to seven word characters. */
const PATH_TAIL = /^[\w.-]*\.[A-Za-z]\w{0,7}$/;
const SEGMENT = /^[\w.-]+$/;
const NAME = /^[\w-]+$/;
const EXTENSIONS = new Set(["ts", "tsx", "js", "jsx", "mjs", "cjs", "json", "md", "py", "go", "rs", "java", "kt", "rb", "php", "c", "h", "cpp", "cs", "sql", "yaml", "yml", "toml", "txt", "csv", "html", "css", "sh"]);
const ID = /\b[A-Z][A-Z0-9]+-\d+\b|#\d+\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;

/** The file paths and file names in one token (see TOKEN). */
function fileMentions(token: string, out: string[]): void {
  const t = token.replace(/^(?:\.{0,2}\/)+/, "").replace(/[.-]+$/, "");
  if (t.includes("/")) {
    const segments = t.split("/");
    const tail = segments[segments.length - 1]!;
    if (segments.length >= 2 && PATH_TAIL.test(tail) && segments.slice(0, -1).every((s) => SEGMENT.test(s))) {
      out.push(t);
      return;
    }
  }
  // File names with a known extension: name.ext inside the token (between dots or slashes).
  for (const part of t.split("/")) {
    const pieces = part.split(".");
    for (let i = 1; i < pieces.length; i++) {
      const name = pieces[i - 1]!;
      if (EXTENSIONS.has(pieces[i]!) && name !== "" && NAME.test(name)) {
        out.push(`${name}.${pieces[i]}`);
        i++;
      }
    }
  }
}

/** The open task's text among `messages`, or undefined when they hold none. */
export function openTask(messages: readonly Message[]): string | undefined {
  let request: string | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.metadata?.task === true) return messageText(m).text;
    if (request === undefined && m.role === "user" && m.metadata?.summary === undefined) {
      const own = ownText(m);
      if (own.trim() !== "") request = own;
    }
  }
  return request;
}

/** The files and ids `messages` mention, most frequent first (at most `limit`). */
export function mentionsOf(messages: readonly Message[], limit = 10): string[] {
  const counts = new Map<string, number>();
  for (const m of messages) {
    const { text, toolCalls } = messageText(m);
    for (const source of [text, ...toolCalls]) {
      const found: string[] = [];
      for (const token of source.match(TOKEN) ?? []) fileMentions(token, found);
      for (const hit of source.matchAll(ID)) found.push(hit[0]);
      for (const mention of found) counts.set(mention, (counts.get(mention) ?? 0) + 1);
    }
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([mention]) => mention);
}

/** A message's own text (string content or text blocks): not tool results, not tool calls. */
function ownText(m: Message): string {
  if (typeof m.content === "string") return m.content;
  const parts: string[] = [];
  forEachContentPart(m, { text: (t) => void parts.push(t) });
  return parts.join("\n");
}
