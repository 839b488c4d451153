/**
 * tiktoken's pre-tokenizer, for ASCII text: where the piece that starts at `at` ends.
 *
 * Each encoding cuts text with one regular expression, a list of alternatives tried in order at
 * each position (leftmost-first, backtracking). On ASCII its classes are small fixed sets:
 *
 * | class in the pattern                         | ASCII characters                         |
 * |----------------------------------------------|------------------------------------------|
 * | `\p{L}`, `\p{N}`                             | A–Z a–z, 0–9                             |
 * | `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`            | A–Z                                      |
 * | `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`                  | a–z                                      |
 * | `\s`                                         | tab, \n, \v, \f, \r, space               |
 * | `[^\r\n\p{L}\p{N}]` (a word's optional lead) | anything but \r, \n, letters and digits  |
 * | `[^\s\p{L}\p{N}]` (punctuation)              | anything but whitespace, letters, digits |
 *
 * cl100k_base: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
 *
 * o200k_base: `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`
 * `|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`
 * `|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
 *
 * The functions below walk those alternatives over character codes, resolving the backtracking by
 * hand (each case says what the regex engine would end up matching). Only for ASCII text: the
 * caller checks (ascii-piece-counter.ts). Equality with tiktoken: test/ascii-piece-counter.test.ts.
 */

const UPPER = 1;
const LOWER = 2;
const DIGIT = 4;
const NEWLINE = 8; // \r \n
const BLANK = 16; // tab \v \f space
const OTHER = 32; // punctuation and control characters
const LETTER = UPPER | LOWER;
const SPACE = NEWLINE | BLANK;
/** `[^\r\n\p{L}\p{N}]`: what may lead a word. */
const LEAD = BLANK | OTHER;

const CLASS = new Uint8Array(128).fill(OTHER);
for (let c = 65; c <= 90; c++) CLASS[c] = UPPER;
for (let c = 97; c <= 122; c++) CLASS[c] = LOWER;
for (let c = 48; c <= 57; c++) CLASS[c] = DIGIT;
CLASS[10] = CLASS[13] = NEWLINE;
CLASS[9] = CLASS[11] = CLASS[12] = CLASS[32] = BLANK;

const APOSTROPHE = 39;
const SLASH = 47;
const SPACE_CHAR = 32;

/** The class of the character at `i`, 0 past the end. */
function at(text: string, i: number): number {
  return i < text.length ? CLASS[text.charCodeAt(i)]! : 0;
}

/** Length of the contraction (`'s 't 're 've 'm 'll 'd`, any case) at `i`, or 0. */
function contraction(text: string, i: number): number {
  if (text.charCodeAt(i) !== APOSTROPHE) return 0;
  const a = text.charCodeAt(i + 1) | 0x20; // lower case (NaN past the end → 0x20, no match)
  if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) return 2; // s t m d
  const b = text.charCodeAt(i + 2) | 0x20;
  if ((a === 0x72 && b === 0x65) || (a === 0x76 && b === 0x65) || (a === 0x6c && b === 0x6c)) return 3; // re ve ll
  return 0;
}

function runOf(text: string, i: number, cls: number): number {
  while (i < text.length && (CLASS[text.charCodeAt(i)]! & cls) !== 0) i++;
  return i;
}

/** `\p{N}{1,3}` at a digit. */
function digits(text: string, i: number): number {
  const end = Math.min(text.length, i + 3);
  let j = i + 1;
  while (j < end && at(text, j) === DIGIT) j++;
  return j;
}

/** ` ?[^\s\p{L}\p{N}]+` then the trailing run (`[\r\n]*`, or `[\r\n/]*` with slashes): the end, or -1. */
function punctuation(text: string, i: number, slashes: boolean): number {
  // ` ?` is greedy, but without it a space cannot start the punctuation run: one try.
  const k = text.charCodeAt(i) === SPACE_CHAR ? i + 1 : i;
  if (at(text, k) !== OTHER) return -1;
  let j = runOf(text, k + 1, OTHER);
  while (j < text.length && (at(text, j) === NEWLINE || (slashes && text.charCodeAt(j) === SLASH))) j++;
  return j;
}

/** The three whitespace alternatives at a whitespace character. */
function whitespace(text: string, i: number): number {
  const end = runOf(text, i, SPACE);
  // `\s*[\r\n]+`: \s* backs off to the run's last newline, which [\r\n]+ takes.
  for (let j = end - 1; j >= i; j--) if (at(text, j) === NEWLINE) return j + 1;
  // `\s+(?!\S)`: the whole run at the end of the text; else all but its last character, if any remain.
  if (end === text.length) return end;
  if (end - 1 > i) return end - 1;
  return end; // `\s+`
}

export const ASCII_PIECE_ENDS = {
  cl100k_base(text: string, i: number): number {
    const c = at(text, i);
    const apostrophe = contraction(text, i);
    if (apostrophe > 0) return i + apostrophe;
    // `[^\r\n\p{L}\p{N}]?\p{L}+`: without the lead a non-letter cannot start the word: one try.
    const w = (c & LEAD) !== 0 ? i + 1 : i;
    if ((at(text, w) & LETTER) !== 0) return runOf(text, w + 1, LETTER);
    if (c === DIGIT) return digits(text, i);
    const p = punctuation(text, i, false);
    if (p >= 0) return p;
    return whitespace(text, i); // what is left at a character is whitespace
  },

  o200k_base(text: string, i: number): number {
    const c = at(text, i);
    const w = (c & LEAD) !== 0 ? i + 1 : i;
    if ((at(text, w) & LETTER) !== 0) {
      // Upper-case run, then: lower-case run (first alternative) or nothing (second; a shorter
      // upper run cannot help the first, the next character would be upper case).
      const u = runOf(text, w, UPPER);
      const end = at(text, u) === LOWER ? runOf(text, u + 1, LOWER) : u;
      return end + contraction(text, end);
    }
    if (c === DIGIT) return digits(text, i);
    const p = punctuation(text, i, true);
    if (p >= 0) return p;
    return whitespace(text, i);
  },
} as const;
