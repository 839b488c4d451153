/**
 * The built-in tokenizers: OpenAI's BPE encodings through the `tiktoken` package (WASM).
 *
 * Loading is lazy and happens once: importing amplifier-ts costs nothing; the first count with
 * a given encoding loads the package (~20 ms) and that encoding's ranks (~70–300 ms). The
 * encoder is then kept for the life of the process — encoders are cached per encoding, shared
 * by every counter. `createRequire` keeps the load synchronous, so counting stays synchronous.
 */
import { createRequire } from "node:module";
import { createError } from "../errors.js";
import type { Tokenizer } from "../../contracts/tokenizer.js";

/** The encodings the built-in tokenizer provides. */
export type TiktokenEncodingName = "cl100k_base" | "o200k_base";

export const TIKTOKEN_ENCODINGS: readonly TiktokenEncodingName[] = ["cl100k_base", "o200k_base"];

/** The subset of tiktoken's API we use. */
interface TiktokenModule {
  get_encoding(name: string): { encode_ordinary(text: string): Uint32Array };
}

let tiktokenModule: TiktokenModule | undefined;
const tokenizers = new Map<TiktokenEncodingName, Tokenizer>();

/**
 * The shared tokenizer for `encoding`. The returned object is cheap; the encoder behind it is
 * loaded on its first `count()`, so a counter can be created without paying for the WASM.
 */
export function getTiktokenTokenizer(encoding: TiktokenEncodingName): Tokenizer {
  if (!TIKTOKEN_ENCODINGS.includes(encoding)) {
    throw createError("INVALID_ARGUMENT", "Unknown tiktoken encoding", {
      module: "core/tokens",
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
  return {
    encoding,
    count(text: string): number {
      if (text.length === 0) return 0;
      encoder ??= loadEncoder(encoding);
      // encode_ordinary: special-token markers in user text are billed as ordinary text.
      return encoder.encode_ordinary(text).length;
    },
  };
}

function loadEncoder(encoding: TiktokenEncodingName): { encode_ordinary(text: string): Uint32Array } {
  try {
    tiktokenModule ??= createRequire(import.meta.url)("tiktoken") as TiktokenModule;
    return tiktokenModule.get_encoding(encoding);
  } catch (cause) {
    throw createError("TOKENIZER_FAILED", `Could not load the tiktoken encoding "${encoding}"`, {
      module: "core/tokens",
      expected: "the tiktoken package (a dependency of amplifier-ts) to be installed and loadable",
      hint: "reinstall dependencies, or pass your own tokenizer: getTokenCounter(model, { tokenizer })",
      cause,
    });
  }
}
