/**
 * Counting long ASCII text piece by piece, with a cache of piece counts.
 *
 * tiktoken encodes a text in two steps: a regular expression cuts it into pre-token pieces (words
 * with their leading space, runs of up to three digits, runs of punctuation, runs of whitespace),
 * then BPE merges each piece on its own. So the count of a text is the sum of the counts of its
 * pieces, and a piece seen before need not be encoded again. Tool output, code and logs repeat
 * their pieces endlessly: a 30,000-character tool result holds a few hundred distinct pieces.
 * tiktoken's own splitting (a backtracking regex engine inside the WASM) is the slow part — about
 * 10 ms for such a result on the bench machine; V8's regex engine cuts the same text in a tenth
 * of that, and cached pieces cost a Map lookup.
 *
 * | when                                    | how the text is counted                                |
 * |-----------------------------------------|--------------------------------------------------------|
 * | shorter than MIN_PIECEWISE_LENGTH        | tiktoken, whole (one WASM call is cheaper than a split) |
 * | any character outside ASCII              | tiktoken, whole                                         |
 * | ASCII, long enough                       | cut here into the encoding's pieces; each piece's count from the cache, or tiktoken's count of that piece alone |
 *
 * Only ASCII: there each of the encoding's character classes (`\p{L}`, `\p{N}`, `\s`, the case
 * classes) is a fixed, small set that V8 and tiktoken's Rust regex agree on, so the pieces — and
 * the count — are exactly tiktoken's (test/tokens/ascii-piece-counter.test.ts checks it against
 * tiktoken on random and realistic text). Outside ASCII the two engines' Unicode tables and
 * whitespace definitions differ in places; such text is never cut here.
 *
 * The cache holds at most MAX_CACHED_PIECES pieces per encoding (pieces longer than
 * MAX_CACHED_PIECE_LENGTH are counted but not kept); when full it is emptied and fills again with
 * what the session repeats.
 */

/** The ASCII form of each encoding's pre-tokenizer pattern (sticky: the split walks it with lastIndex). */
const CONTRACTIONS = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])";
const SPACE = "[\\t\\n\\v\\f\\r ]";
const NOT_SPACE_LETTER_DIGIT = "[^\\t\\n\\v\\f\\r A-Za-z0-9]";
const NOT_SPACE = "[^\\t\\n\\v\\f\\r ]";
const ASCII_PATTERNS = {
  // cl100k_base: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
  cl100k_base: new RegExp(
    [CONTRACTIONS, "[^\\r\\nA-Za-z0-9]?[A-Za-z]+", "[0-9]{1,3}", ` ?${NOT_SPACE_LETTER_DIGIT}+[\\r\\n]*`, `${SPACE}*[\\r\\n]+`, `${SPACE}+(?!${NOT_SPACE})`, `${SPACE}+`].join("|"),
    "y",
  ),
  // o200k_base: upper-then-lower and upper-only words (with an optional leading non-letter and a
  // contraction), digits in threes, punctuation runs (with trailing newlines or slashes), newlines,
  // whitespace not followed by a non-space, whitespace.
  o200k_base: new RegExp(
    [
      `[^\\r\\nA-Za-z0-9]?[A-Z]*[a-z]+${CONTRACTIONS}?`,
      `[^\\r\\nA-Za-z0-9]?[A-Z]+[a-z]*${CONTRACTIONS}?`,
      "[0-9]{1,3}",
      ` ?${NOT_SPACE_LETTER_DIGIT}+[\\r\\n/]*`,
      `${SPACE}*[\\r\\n]+`,
      `${SPACE}+(?!${NOT_SPACE})`,
      `${SPACE}+`,
    ].join("|"),
    "y",
  ),
} as const;

export type PiecewiseEncoding = keyof typeof ASCII_PATTERNS;

/** Below this length a text goes to tiktoken whole. */
export const MIN_PIECEWISE_LENGTH = 256;
export const MAX_CACHED_PIECES = 65_536;
export const MAX_CACHED_PIECE_LENGTH = 64;

const NON_ASCII = /[^\x00-\x7f]/;

export interface AsciiPieceCounter {
  /** The count of `text`, or undefined when it is not for this counter (short, or not ASCII). */
  count(text: string): number | undefined;
}

/**
 * A piece counter for `encoding` over `encodePiece` (tiktoken's count of one piece). Returns
 * undefined for an encoding without an ASCII pattern here.
 */
export function createAsciiPieceCounter(encoding: string, encodePiece: (piece: string) => number): AsciiPieceCounter | undefined {
  const source = (ASCII_PATTERNS as Record<string, RegExp | undefined>)[encoding];
  if (source === undefined) return undefined;
  const pattern = new RegExp(source.source, source.flags);
  const cache = new Map<string, number>();
  return {
    count(text: string): number | undefined {
      if (text.length < MIN_PIECEWISE_LENGTH || NON_ASCII.test(text)) return undefined;
      let total = 0;
      let at = 0;
      pattern.lastIndex = 0;
      while (at < text.length) {
        const match = pattern.exec(text);
        if (match === null) return undefined; // unreachable for ASCII (the last alternatives take any whitespace, the others anything else); tiktoken decides
        const piece = match[0];
        at = pattern.lastIndex;
        let tokens = cache.get(piece);
        if (tokens === undefined) {
          tokens = encodePiece(piece);
          if (piece.length <= MAX_CACHED_PIECE_LENGTH) {
            if (cache.size >= MAX_CACHED_PIECES) cache.clear();
            cache.set(piece, tokens);
          }
        }
        total += tokens;
      }
      return total;
    },
  };
}
