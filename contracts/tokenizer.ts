/**
 * Tokenizer contract — version 1.
 *
 * A tokenizer turns text into a token count for one encoding. The token counter
 * (@amplifier-ts/tokens) builds everything else on top of it: per-message framing, tool schemas,
 * images, caching and the safety factor. Plug your own in with
 * `getTokenCounter(model, { tokenizer })` — e.g. a provider's exact tokenizer, or a cheap
 * estimate in tests.
 *
 * Semantics an implementation must keep:
 * - `count(text)` is a pure function of `text`: the same text always gives the same count
 *   (counts are cached per message, per tokenizer).
 * - It returns a non-negative integer; `count("")` is 0.
 * - Special-token markers inside `text` (`<|endoftext|>` …) are ordinary text: user content
 *   can contain them, and the provider bills them as text.
 * - It is synchronous: counting sits on the hot path of every model call.
 *
 * `encoding` names the vocabulary (`"o200k_base"`, `"cl100k_base"`, or your own name). Two
 * tokenizers with the same `encoding` must count identically.
 */
export interface Tokenizer {
  readonly encoding: string;
  count(text: string): number;
}
