/**
 * The excerpt a window carries for a spilled input (spilled-history.ts): what the model needs to
 * decide what to read next, within a token budget.
 *
 * | part     | what                                                                      | share of the budget |
 * |----------|---------------------------------------------------------------------------|---------------------|
 * | header   | size, handle, how to read more (given by the caller)                       | what it takes       |
 * | head     | the start of the text, cut at a line end when one is near                  | 30 % (50 % without matches) |
 * | matches  | lines of the middle that hold the query's terms, rarest terms first, in text order, each with its line number and character offset; a long line is shown around its first match | 40 %; what it leaves goes to head and tail |
 * | tail     | the end of the text, from a line start when one is near                    | 30 % (50 % without matches) |
 *
 * A term's weight is log(1 + lines / lines holding it): an id that occurs once outweighs a word on
 * every line. Cuts never split a surrogate pair. The result is counted with the model's tokenizer
 * and shrunk until it fits `maxTokens` (exactly, not estimated).
 */

export interface ExcerptRequest {
  readonly text: string;
  /** Lowercased search terms (queryTerms). */
  readonly terms: readonly string[];
  /** The budget of the whole excerpt, header included, in tokens of `countText`. */
  readonly maxTokens: number;
  readonly countText: (text: string) => number;
  /** First lines of the excerpt (what it is, the handle, how to read more). */
  readonly header: string;
}

export interface MatchedLine {
  /** 1-based line number. */
  readonly line: number;
  /** Character offset (UTF-16 code units, as read_stored_result pages) of the line's start. */
  readonly offset: number;
  readonly text: string;
}

/** Characters per token the first attempt assumes; later attempts use the measured ratio. */
const FIRST_CHARS_PER_TOKEN = 3;
/** How long one shown matching line may be, in characters. */
const MAX_LINE_CHARS = 400;
/** A term on more lines than this share of them says nothing about where to look. */
const MAX_TERM_LINE_SHARE = 0.2;
/** Occurrences of one term examined at most (a 5 MB log and a common word). */
const MAX_OCCURRENCES = 200_000;
const MAX_ATTEMPTS = 6;

/** The excerpt text: header, then head, matching lines and tail, within `maxTokens`. */
export function excerptOf(request: ExcerptRequest): string {
  const { text, maxTokens, countText, header } = request;
  const lines = lineStarts(text);
  let chars = Math.max(0, (maxTokens - countText(header)) * FIRST_CHARS_PER_TOKEN);
  let ranked: MatchedLine[] | undefined;
  for (let attempt = 0; attempt < MAX_ATTEMPTS && chars > 0; attempt++) {
    ranked ??= rankedLines(text, lines, request.terms);
    const candidate = `${header}\n${layout(text, lines, ranked, chars)}`;
    const tokens = countText(candidate);
    if (tokens <= maxTokens) return candidate;
    // Shrink by the measured ratio, with a margin, and try again.
    chars = Math.floor(((chars * maxTokens) / tokens) * 0.92);
  }
  return header;
}

/** The search terms of a query (the prompt, a tool call's arguments): lowercased, deduplicated, at most 32. */
export function queryTerms(texts: readonly string[]): string[] {
  const terms = new Set<string>();
  for (const text of texts) {
    for (const match of text.slice(0, 4_000).matchAll(/[\p{L}\p{N}_]+(?:[-.:/@][\p{L}\p{N}_]+)*/gu)) {
      const word = match[0].toLowerCase();
      addTerm(terms, word);
      if (/[-.:/@]/.test(word)) for (const part of word.split(/[-.:/@]/)) addTerm(terms, part);
      if (terms.size >= 32) return [...terms];
    }
  }
  return [...terms];
}

// --- private ----------------------------------------------------------------------------------

function addTerm(terms: Set<string>, word: string): void {
  const meaningful = /\p{N}/u.test(word) ? word.length >= 2 : word.length >= 3;
  if (meaningful && !STOP_WORDS.has(word)) terms.add(word);
}

/** The three parts within `chars` characters. */
function layout(text: string, lines: readonly number[], ranked: readonly MatchedLine[], chars: number): string {
  let matchBudget = ranked.length > 0 ? Math.floor(chars * 0.4) : 0;
  const shown: MatchedLine[] = [];
  const edge = Math.floor((chars - matchBudget) / 2);
  const headEnd = headCut(text, edge);
  const tailStart = tailCut(text, edge);
  for (const line of ranked) {
    if (line.offset < headEnd || line.offset >= tailStart) continue;
    const cost = line.text.length + 24;
    if (cost > matchBudget) continue;
    matchBudget -= cost;
    shown.push(line);
  }
  // What the matches left goes to the head and the tail.
  const spare = Math.floor(matchBudget / 2);
  const head = text.slice(0, headCut(text, edge + spare));
  const tailFrom = Math.max(head.length, tailCut(text, edge + spare));
  const tail = text.slice(tailFrom);
  shown.sort((a, b) => a.offset - b.offset);
  const parts = [`--- start (characters 0-${head.length}) ---`, head];
  if (shown.length > 0) {
    parts.push(`--- lines matching the request (of ${lines.length} lines) ---`);
    for (const line of shown) parts.push(`line ${line.line} (offset ${line.offset}): ${line.text}`);
  }
  parts.push(`--- end (characters ${tailFrom}-${text.length}) ---`, tail);
  return parts.join("\n");
}

/** Where the head ends: about `chars` in, at a line end when one is in the last fifth. */
function headCut(text: string, chars: number): number {
  if (chars >= text.length) return text.length;
  let end = safeCut(text, chars);
  const newline = text.lastIndexOf("\n", end - 1);
  if (newline >= 0 && newline >= end - chars / 5) end = newline + 1;
  return end;
}

/** Where the tail starts: about `chars` before the end, at a line start when one is in the first fifth. */
function tailCut(text: string, chars: number): number {
  if (chars >= text.length) return 0;
  let start = safeCut(text, text.length - chars);
  const newline = text.indexOf("\n", start);
  if (newline >= 0 && newline + 1 <= start + chars / 5) start = newline + 1;
  return start;
}

/** `index`, moved back one when it would split a surrogate pair. */
function safeCut(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return Math.max(0, Math.min(index, text.length));
  const code = text.charCodeAt(index - 1);
  return code >= 0xd800 && code <= 0xdbff ? index - 1 : index;
}

/** Offsets where each line starts. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0 && i < text.length - 1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** The lines holding query terms, best first (score, then earlier), each cut around its first match. */
function rankedLines(text: string, starts: readonly number[], terms: readonly string[]): MatchedLine[] {
  if (terms.length === 0) return [];
  const lower = text.toLowerCase();
  // toLowerCase keeps offsets only when no character changes length (a rare few do: İ): else no matches.
  if (lower.length !== text.length) return [];
  const scores = new Map<number, { score: number; first: number }>();
  for (const term of terms) {
    const hits = new Map<number, number>();
    let count = 0;
    for (let at = lower.indexOf(term); at >= 0 && count < MAX_OCCURRENCES; at = lower.indexOf(term, at + term.length), count++) {
      const line = lineOf(starts, at);
      if (!hits.has(line)) hits.set(line, at);
    }
    if (hits.size === 0 || hits.size > Math.max(1, starts.length * MAX_TERM_LINE_SHARE)) continue;
    const weight = Math.log(1 + starts.length / hits.size);
    for (const [line, at] of hits) {
      const entry = scores.get(line);
      if (entry) {
        entry.score += weight;
        entry.first = Math.min(entry.first, at);
      } else scores.set(line, { score: weight, first: at });
    }
  }
  const ordered = [...scores].sort((a, b) => b[1].score - a[1].score || a[0] - b[0]);
  return ordered.slice(0, 2_000).map(([line, { first }]) => {
    const offset = starts[line]!;
    const end = line + 1 < starts.length ? starts[line + 1]! - 1 : text.length;
    return { line: line + 1, offset, text: around(text, offset, end, first) };
  });
}

/** The line [start, end), or MAX_LINE_CHARS of it around `at`, marked where cut. */
function around(text: string, start: number, end: number, at: number): string {
  if (end - start <= MAX_LINE_CHARS) return text.slice(start, end);
  const from = safeCut(text, Math.max(start, Math.min(at - MAX_LINE_CHARS / 4, end - MAX_LINE_CHARS)));
  const to = safeCut(text, Math.min(end, from + MAX_LINE_CHARS));
  return `${from > start ? "…" : ""}${text.slice(from, to)}${to < end ? "…" : ""}`;
}

/** The line (0-based) holding offset `at`: binary search over the line starts. */
function lineOf(starts: readonly number[], at: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= at) low = mid;
    else high = mid - 1;
  }
  return low;
}

const STOP_WORDS = new Set([
  "the", "and", "for", "are", "but", "not", "you", "all", "any", "can", "had", "her", "was", "one", "our", "out", "has", "him", "his", "how", "its", "may", "new", "now", "old", "see", "two", "who", "did", "get", "let", "say", "she", "too", "use", "what", "when", "where", "which", "why", "with", "this", "that", "from", "have", "they", "will", "would", "there", "their", "been", "into", "than", "then", "them", "these", "those", "some", "such", "only", "also", "just", "does", "done", "about", "over", "after", "before", "please", "could", "should", "find", "show", "tell", "look", "line", "lines", "file", "text", "result", "output",
]);
