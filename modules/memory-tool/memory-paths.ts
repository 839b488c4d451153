/**
 * Memory paths as the model writes them (`/memories/notes/today.md`) and as the stores take them
 * (`notes/today.md`, `""` for the root). Everything is under /memories; a path breaking a rule is
 * refused before any store sees it, with the rule named so the model can correct itself:
 *
 * | rule | why |
 * |---|---|
 * | starts with `/memories` as a whole segment (`/memories`, `/memories/…`) | the documented root; `/memoriesx`, `memories/x`, `/etc/x` are refused |
 * | no `.` or `..` segment, no empty segment (`//`) | no traversal, one spelling per file |
 * | no backslash | no Windows-style separator that a backend might read as one |
 * | no percent-encoding (`%2e%2e%2f`, `%00`) | no path a later decoding step could turn into a traversal |
 * | no NUL or control character (U+0000–U+001F, U+007F–U+009F) | no truncation by a C API, no invisible names |
 * | no segment starting with a dot | hidden names are the stores' own (lock and temp files); listings hide them anyway |
 * | at most `maxPathLength` characters, `maxDepth` directories, 255 UTF-8 bytes per segment | file-system limits, bounded listings |
 *
 * A trailing slash is accepted (`/memories/notes/` is `/memories/notes`). Symbolic links are the
 * file store's concern: it never follows one (file-memory-tree.ts).
 */
export const MEMORY_ROOT = "/memories";

export interface PathLimits {
  maxPathLength: number;
  maxDepth: number;
}

export type ParsedPath = { ok: true; rel: string; display: string } | { ok: false; reason: string };

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const PERCENT_ENCODED = /%[0-9a-fA-F]{2}/;
const MAX_SEGMENT_BYTES = 255;

export function parseMemoryPath(raw: string, limits: PathLimits): ParsedPath {
  if (CONTROL.test(raw)) return refuse("control characters (NUL included) are not allowed in memory paths");
  if (raw.includes("\\")) return refuse("backslashes are not allowed (use / between directories)");
  if (PERCENT_ENCODED.test(raw)) return refuse("percent-encoded characters (such as %2e or %2f) are not allowed");
  if (raw.length > limits.maxPathLength) return refuse(`a memory path has at most ${limits.maxPathLength} characters`);
  const trimmed = raw.length > MEMORY_ROOT.length && raw.endsWith("/") ? raw.slice(0, -1) : raw;
  if (trimmed !== MEMORY_ROOT && !trimmed.startsWith(`${MEMORY_ROOT}/`)) return refuse(`memory paths start with ${MEMORY_ROOT} (for example ${MEMORY_ROOT}/notes.md)`);
  if (trimmed === MEMORY_ROOT) return { ok: true, rel: "", display: MEMORY_ROOT };
  const segments = trimmed.slice(MEMORY_ROOT.length + 1).split("/");
  for (const segment of segments) {
    if (segment === "") return refuse("empty path segments (//) are not allowed");
    if (segment === "." || segment === "..") return refuse("'.' and '..' are not allowed: a memory path cannot leave /memories");
    if (segment.startsWith(".")) return refuse("names starting with a dot are not allowed");
    if (Buffer.byteLength(segment, "utf8") > MAX_SEGMENT_BYTES) return refuse(`a file or directory name has at most ${MAX_SEGMENT_BYTES} bytes`);
  }
  if (segments.length - 1 > limits.maxDepth) return refuse(`memory files lie at most ${limits.maxDepth} directories deep`);
  const rel = segments.join("/");
  return { ok: true, rel, display: displayPath(rel) };
}

/** `/memories` or `/memories/<rel>`. */
export function displayPath(rel: string): string {
  return rel === "" ? MEMORY_ROOT : `${MEMORY_ROOT}/${rel}`;
}

/** The directory holding `rel` (`""` for a file at the root). */
export function parentOf(rel: string): string {
  const slash = rel.lastIndexOf("/");
  return slash < 0 ? "" : rel.slice(0, slash);
}

/** True when `rel` is `dir` or lies under it. */
export function isWithin(rel: string, dir: string): boolean {
  return dir === "" || rel === dir || rel.startsWith(`${dir}/`);
}

/** How a refused path is quoted back: as written when printable, else as a JSON string (a NUL would vanish in the output). */
export function quotePath(raw: string): string {
  return CONTROL.test(raw) ? JSON.stringify(raw) : raw;
}

function refuse(reason: string): ParsedPath {
  return { ok: false, reason };
}
