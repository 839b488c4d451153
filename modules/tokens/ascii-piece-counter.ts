/**
 * Counting long ASCII text piece by piece, with a cache of piece counts.
 *
 * tiktoken encodes a text in two steps: a regular expression cuts it into pre-token pieces (words
 * with their leading space, runs of up to three digits, runs of punctuation, runs of whitespace),
 * then BPE merges each piece on its own. So the count of a text is the sum of the counts of its
 * pieces, and a piece seen before need not be encoded again. Tool output, code and logs repeat
 * their pieces endlessly: a 30,000-character tool result holds a few hundred distinct pieces.
 * tiktoken's own splitting (a backtracking regex engine inside the WASM) is the slow part — 13 ms
 * or more for such a result on the bench machine. Here a scanner over character codes cuts the
 * same pieces (ascii-pieces.ts) and cached pieces cost a Map lookup.
 *
 * | when                                    | how the text is counted                                |
 * |-----------------------------------------|--------------------------------------------------------|
 * | shorter than MIN_PIECEWISE_LENGTH        | tiktoken, whole (one WASM call is cheaper than a split) |
 * | ASCII, long enough                       | cut here into the encoding's pieces; each piece's count from the cache, or tiktoken's count of that piece alone |
 * | characters outside ASCII                 | cut into lines where every piece ends (lineBreaks): ASCII lines as above, the others to tiktoken whole; text without such a line break to tiktoken whole |
 *
 * Only ASCII: there each of the encoding's character classes (`\p{L}`, `\p{N}`, `\s`, the case
 * classes) is a fixed, small set, so the pieces — and the count — are exactly tiktoken's
 * (test/ascii-piece-counter.test.ts checks it against tiktoken on random and realistic
 * text). Outside ASCII, Unicode tables and whitespace definitions make that a larger claim; such
 * text is never cut into pieces here, only into lines.
 *
 * The cache holds at most MAX_CACHED_PIECES pieces per encoding (pieces longer than
 * MAX_CACHED_PIECE_LENGTH are counted but not kept); when full it is emptied and fills again with
 * what the session repeats.
 */
import { ASCII_PIECE_ENDS } from "./ascii-pieces.js";

/** Below this length a text goes to tiktoken whole. */
export const MIN_PIECEWISE_LENGTH = 256;
export const MAX_CACHED_PIECES = 65_536;
export const MAX_CACHED_PIECE_LENGTH = 64;

const NON_ASCII = /[^\x00-\x7f]/;

export interface AsciiPieceCounter {
  /** The count of `text`, or undefined when it is not for this counter (short, or nothing of it is ASCII lines). */
  count(text: string): number | undefined;
}

/**
 * A piece counter for `encoding` over `encodePiece` (tiktoken's count of one piece, or of any
 * text). Returns undefined for an encoding without an ASCII scanner here.
 */
export function createAsciiPieceCounter(encoding: string, encodePiece: (piece: string) => number): AsciiPieceCounter | undefined {
  const pieceEnd = (ASCII_PIECE_ENDS as Record<string, ((text: string, at: number) => number) | undefined>)[encoding];
  if (pieceEnd === undefined) return undefined;
  const cache = new Map<string, number>();
  const countAscii = (text: string): number => {
    let total = 0;
    for (let at = 0; at < text.length; ) {
      const end = pieceEnd(text, at);
      const piece = text.slice(at, end);
      at = end;
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
  };
  return {
    count(text: string): number | undefined {
      if (text.length < MIN_PIECEWISE_LENGTH) return undefined;
      if (!NON_ASCII.test(text)) return countAscii(text);
      // Mixed text: cut into lines where both encodings end a piece (lineBreaks), ASCII lines here,
      // the others to tiktoken whole. Nothing to gain without a line break.
      const cuts = lineBreaks(text);
      if (cuts.length === 0) return undefined;
      let total = 0;
      let from = 0;
      for (const to of [...cuts, text.length]) {
        const line = text.slice(from, to);
        total += NON_ASCII.test(line) ? encodePiece(line) : countAscii(line);
        from = to;
      }
      return total;
    },
  };
}

/**
 * Positions right after a "\n" followed by an ASCII character that is not whitespace and not
 * "/": every piece of both encodings ends there. The newline's piece is whitespace that ends at
 * the last newline of its run (`\s*[\r\n]+`) or punctuation with trailing newlines (`[\r\n]*`,
 * o200k `[\r\n/]*`: hence not before "/"); no word, number or contraction holds a newline; and
 * a piece that starts at the next character depends only on the text from there on.
 */
function lineBreaks(text: string): number[] {
  const cuts: number[] = [];
  for (let i = text.indexOf("\n"); i !== -1 && i + 1 < text.length; i = text.indexOf("\n", i + 1)) {
    const next = text.charCodeAt(i + 1);
    if (next < 128 && next !== 47 && next !== 32 && (next < 9 || next > 13)) cuts.push(i + 1);
  }
  return cuts;
}
