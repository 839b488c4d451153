/**
 * The tokenizer of the history index: one function used for documents and queries alike, so a
 * query term matches whatever form the document had. Made for chat about code:
 *
 * | input                      | terms                                                    |
 * |----------------------------|----------------------------------------------------------|
 * | `fetchUserProfile`         | fetchuserprofile, fetch, user, profile                   |
 * | `MAX_RETRY_COUNT`          | max_retry_count, max, retry, count                       |
 * | `src/core/errors.ts`       | src/core/errors.ts, src, core, errors (→ error), ts      |
 * | `2024-03-15`, `10:30`      | 2024-03-15, 2024, 3, 15 · 10:30, 10, 30                  |
 * | `1,500` / `1500` / `3.14`  | 1500 · 1500 · 3.14, 3, 14                                 |
 * | `Parsing failed`           | parse, fail (light English suffix stemming; stop words out) |
 *
 * Every term is lowercased. Compounds (identifiers, paths, dates, dotted names) are kept whole AND
 * split, so an exact identifier ranks above a message that only shares one of its parts.
 */

const RAW = /[\p{L}\p{N}_]+(?:[./:@#-][\p{L}\p{N}_]+)*/gu;
const THOUSANDS = /\b\d{1,3}(?:,\d{3})+\b/g;
const CAMEL = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+/gu;

export function tokenize(text: string): string[] {
  const out: string[] = [];
  const source = text.replace(THOUSANDS, (n) => n.replace(/,/g, ""));
  for (const match of source.matchAll(RAW)) {
    const raw = match[0];
    let terms = memo.get(raw);
    if (terms === undefined) {
      terms = termsOf(raw);
      // Chat vocabulary is Zipfian: a bounded memo of raw token → terms makes indexing ~5× faster.
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(raw, terms);
    }
    for (const term of terms) out.push(term);
  }
  return out;
}

const MEMO_LIMIT = 100_000;
const memo = new Map<string, readonly string[]>();

function termsOf(raw: string): string[] {
  const out: string[] = [];
  const parts = splitCompound(raw);
  if (parts.length > 1) {
    const whole = raw.toLowerCase();
    if (whole.length <= 64) out.push(whole);
  }
  for (const part of parts) {
    const term = normalize(part);
    if (term !== undefined) out.push(term);
  }
  return out;
}

/** The distinct terms of a text (for explanations: which query terms a hit contains). */
export function distinctTerms(text: string): Set<string> {
  return new Set(tokenize(text));
}

/** `src/fetchUser_v2.ts` → src, fetch, User, v, 2, ts (separators, snake_case, camelCase, digits). */
function splitCompound(raw: string): string[] {
  const parts: string[] = [];
  for (const piece of raw.split(/[./:@#_-]+/)) {
    if (piece === "") continue;
    const camel = piece.match(CAMEL);
    if (camel === null || camel.join("") !== piece) parts.push(piece);
    // One push per part: a spread of a long camelCase run (100k+ parts) overflows the call stack.
    else for (const part of camel) parts.push(part);
  }
  return parts;
}

function normalize(part: string): string | undefined {
  const lower = part.toLowerCase();
  if (/^\d+$/.test(lower)) return lower.replace(/^0+(?=\d)/, "");
  if (lower.length < 2 || STOP_WORDS.has(lower)) return undefined;
  return stem(lower);
}

/** A light suffix stemmer (plural, -ing, -ed, -ly): enough for "parsing"/"parsed"/"parses" to meet. */
function stem(word: string): string {
  if (word.length <= 3 || !/^\p{Ll}+$/u.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith("sses")) return word.slice(0, -2);
  for (const suffix of ["ing", "ed"]) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) return undoubled(word.slice(0, -suffix.length));
  }
  if (word.endsWith("ly") && word.length > 5) return word.slice(0, -2);
  if (/(?:ch|sh|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us") && !word.endsWith("is")) word = word.slice(0, -1);
  if (word.endsWith("e") && word.length > 4) return word.slice(0, -1);
  return word;
}

/** "stopp" → "stop", "runn" → "run"; "fall", "pass" stay. */
function undoubled(word: string): string {
  const n = word.length;
  if (n >= 3 && word[n - 1] === word[n - 2] && !"lsz".includes(word[n - 1]!)) return word.slice(0, -1);
  if (word.endsWith("e")) return word.slice(0, -1);
  return word;
}

/**
 * English function words (the usual IR stop list: pronouns, articles, auxiliaries, prepositions,
 * conjunctions, contraction stems) and a few conversational fillers ("okay", "please", "let").
 * They match almost every message, so in a query they only add noise to the ranking.
 */
const STOP_WORDS = new Set(
  (
    "a about above after again against all also am an and any are aren as at be because been before being below between both but by " +
    "can couldn did didn do does doesn doing don down during each few for from further had hadn has hasn have haven having he her " +
    "here hers herself him himself his how i if in into is isn it its itself just ll me more most my myself no nor not now of off " +
    "on once only or other our ours ourselves out over own re same she should shouldn so some such than that the their theirs " +
    "them themselves then there these they this those through to too under until up us ve very was wasn we were weren what when " +
    "where which while who whom whose why will with won would wouldn you your yours yourself yourselves " +
    "let ok okay please thanks yes yeah"
  ).split(" "),
);

/** True for the function words the tokenizer leaves out (lower-case input). */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}
