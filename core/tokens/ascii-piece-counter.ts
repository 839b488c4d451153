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
 * | any character outside ASCII              | tiktoken, whole                                         |
 * | ASCII, long enough                       | cut here into the encoding's pieces; each piece's count from the cache, or tiktoken's count of that piece alone |
 *
 * Only ASCII: there each of the encoding's character classes (`\p{L}`, `\p{N}`, `\s`, the case
 * classes) is a fixed, small set, so the pieces — and the count — are exactly tiktoken's
 * (test/tokens/ascii-piece-counter.test.ts checks it against tiktoken on random and realistic
 * text). Outside ASCII, Unicode tables and whitespace definitions make that a larger claim; such
 * text is never cut here.
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
  /** The count of `text`, or undefined when it is not for this counter (short, or not ASCII). */
  count(text: string): number | undefined;
}

/**
 * A piece counter for `encoding` over `encodePiece` (tiktoken's count of one piece). Returns
 * undefined for an encoding without an ASCII scanner here.
 */
export function createAsciiPieceCounter(encoding: string, encodePiece: (piece: string) => number): AsciiPieceCounter | undefined {
  const pieceEnd = (ASCII_PIECE_ENDS as Record<string, ((text: string, at: number) => number) | undefined>)[encoding];
  if (pieceEnd === undefined) return undefined;
  const cache = new Map<string, number>();
  return {
    count(text: string): number | undefined {
      if (text.length < MIN_PIECEWISE_LENGTH || NON_ASCII.test(text)) return undefined;
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
    },
  };
}
