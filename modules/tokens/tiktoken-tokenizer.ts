/**
 * The built-in tokenizers: OpenAI's BPE encodings through the `tiktoken` package (WASM).
 *
 * Loading is lazy and happens once: importing amplifier-ts costs nothing; the first count with
 * a given encoding loads the package (~20 ms) and that encoding's ranks (~70–300 ms). The
 * encoder is then kept for the life of the process — encoders are cached per encoding, shared
 * by every counter. `createRequire` keeps the load synchronous, so counting stays synchronous.
 *
 * Long runs are cut. tiktoken's BPE is quadratic in the length of one pre-token piece, and a
 * piece is a run of letters, of spaces or of punctuation: 50,000 characters of Japanese
 * without spaces take ~20 s, a 1 MB run of one letter crashes the WASM. So any run of
 * non-whitespace or of whitespace longer than MAX_RUN (256) characters is cut every MAX_RUN
 * characters (never inside a surrogate pair) and the parts are counted separately. Text whose
 * words are shorter than that — prose and code in Latin scripts — is counted exactly; a cut
 * costs at most a token or two (measured: +0.2 % on Japanese, above the exact count), and the
 * worst case becomes linear (~2 µs per character).
 */
import { createRequire } from "node:module";
import { createError } from "@amplifier-ts/contracts";
import type { Tokenizer } from "@amplifier-ts/contracts";
import { createAsciiPieceCounter } from "./ascii-piece-counter.js";

/** The encodings the built-in tokenizer provides. */
export type TiktokenEncodingName = "cl100k_base" | "o200k_base";

export const TIKTOKEN_ENCODINGS: readonly TiktokenEncodingName[] = ["cl100k_base", "o200k_base"];

/** The subset of tiktoken's API we use. */
interface TiktokenModule {
  get_encoding(name: string): { encode_ordinary(text: string): Uint32Array };
}

/** Longest run of non-whitespace (or whitespace) characters encoded in one piece. */
export const MAX_RUN = 256;

let tiktokenModule: TiktokenModule | undefined;
const tokenizers = new Map<TiktokenEncodingName, Tokenizer>();

/**
 * The shared tokenizer for `encoding`. The returned object is cheap; the encoder behind it is
 * loaded on its first `count()`, so a counter can be created without paying for the WASM.
 */
export function getTiktokenTokenizer(encoding: TiktokenEncodingName): Tokenizer {
  if (!TIKTOKEN_ENCODINGS.includes(encoding)) {
    throw createError("INVALID_ARGUMENT", "Unknown tiktoken encoding", {
      module: "@amplifier-ts/tokens",
      path: "encoding",
      expected: TIKTOKEN_ENCODINGS.map((e) => `"${e}"`).join(" or "),
      given: encoding,
    });
  }
  let tokenizer = tokenizers.get(encoding);
  if (!tokenizer) {
    tokenizer = createLazyTokenizer(encoding);
    tokenizers.set(encoding, tokenizer);
  }
  return tokenizer;
}

/** Whether the tiktoken package has been loaded (for tests of the lazy loading). */
export function isTiktokenLoaded(): boolean {
  return tiktokenModule !== undefined;
}

function createLazyTokenizer(encoding: TiktokenEncodingName): Tokenizer {
  let encoder: { encode_ordinary(text: string): Uint32Array } | undefined;
  // encode_ordinary: special-token markers in user text are billed as ordinary text.
  const encodeLength = (text: string): number => {
    try {
      return (encoder as { encode_ordinary(text: string): Uint32Array }).encode_ordinary(text).length;
    } catch (cause) {
      throw createError("TOKENIZER_FAILED", `tiktoken (${encoding}) failed on a text of ${text.length} characters`, {
        module: "@amplifier-ts/tokens",
        cause,
      });
    }
  };
  // Long ASCII segments are cut into tiktoken's own pieces here and counted piece by piece, from
  // a cache (ascii-piece-counter.ts): the same count, several times faster on tool output.
  const pieces = createAsciiPieceCounter(encoding, encodeLength);
  const countSegment = pieces === undefined ? encodeLength : (segment: string): number => pieces.count(segment) ?? encodeLength(segment);
  return {
    encoding,
    count(text: string): number {
      if (text.length === 0) return 0;
      encoder ??= loadEncoder(encoding);
      return text.length <= MAX_RUN ? encodeLength(text) : countInRuns(text, countSegment);
    },
  };
}

/** Σ encodeLength over `text` cut so that no run of (non-)whitespace exceeds MAX_RUN. */
export function countInRuns(text: string, encodeLength: (text: string) => number): number {
  let total = 0;
  let segmentStart = 0;
  let runStart = 0;
  let runIsSpace = isSpace(text.charCodeAt(0));
  for (let i = 1; i < text.length; i++) {
    const space = isSpace(text.charCodeAt(i));
    if (space !== runIsSpace) {
      runIsSpace = space;
      runStart = i;
    } else if (i - runStart >= MAX_RUN) {
      const cut = isLowSurrogate(text.charCodeAt(i)) ? i - 1 : i;
      total += encodeLength(text.slice(segmentStart, cut));
      segmentStart = cut;
      runStart = cut;
    }
  }
  return total + encodeLength(text.slice(segmentStart));
}

function isSpace(c: number): boolean {
  return (
    c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x85 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

function loadEncoder(encoding: TiktokenEncodingName): { encode_ordinary(text: string): Uint32Array } {
  try {
    tiktokenModule ??= createRequire(import.meta.url)("tiktoken") as TiktokenModule;
    return tiktokenModule.get_encoding(encoding);
  } catch (cause) {
    throw createError("TOKENIZER_FAILED", `Could not load the tiktoken encoding "${encoding}"`, {
      module: "@amplifier-ts/tokens",
      expected: "the tiktoken package (a dependency of amplifier-ts) to be installed and loadable",
      hint: "reinstall dependencies, or pass your own tokenizer: getTokenCounter(model, { tokenizer })",
      cause,
    });
  }
}
